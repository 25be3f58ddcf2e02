import Foundation
import Hearth
import Testing

@Suite("Reads while the server is down")
struct OfflineReadTests {
    @Test func readsFallBackToTheCacheWhenTheServerIsGone() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let app = server.app()
        let db = Firestore.firestore(app: app)
        let collection = db.collection(unique("offline"))
        for n in 0..<4 { try await collection.document("d\(n)").setData(["n": n, "even": n % 2 == 0]) }
        // Reading fills the cache (writes alone do not: the server's final values are only known after a read).
        let online = try await collection.order(by: "n").getDocuments()
        #expect(online.count == 4 && !online.metadata.isFromCache)
        let single = try await collection.document("d1").getDocument()
        #expect(!single.metadata.isFromCache)

        server.halt()
        let document = try await collection.document("d1").getDocument()
        #expect(document.metadata.isFromCache)
        #expect(document.get("n") as? Int == 1)
        let evens = try await collection.whereField("even", isEqualTo: true).getDocuments()
        #expect(evens.metadata.isFromCache)
        #expect(evens.documents.map(\.documentID).sorted() == ["d0", "d2"])
        let last = try await collection.order(by: "n").limit(toLast: 2).getDocuments()
        #expect(last.documents.map(\.documentID) == ["d2", "d3"])
        do {
            _ = try await collection.document("d1").getDocument(source: .server)
            Issue.record("a server read must fail offline")
        } catch FirestoreErrorCode.unavailable {}
        do {
            try await collection.document("d9").setData(["n": 9])
            Issue.record("writes need the server in this version")
        } catch FirestoreErrorCode.unavailable {}
        #expect(try await collection.document("d0").getDocument(source: .cache).exists)
    }
}
