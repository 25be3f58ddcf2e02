import Foundation
import Hearth
import HearthTestSupport
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

        await server.halt()
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
        #expect(try await collection.document("d0").getDocument(source: .cache).exists)
    }
}

@Suite("Writes while the server is down", .timeLimit(.minutes(1)))
struct OfflineWriteTests {
    @Test func queuedWritesAreVisibleLocallyAndDeliveredOnceAfterRestart() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let app = server.app()
        let db = Firestore.firestore(app: app)
        let collection = db.collection(unique("queued"))
        try await collection.document("a").setData(["n": 1])
        _ = try await collection.getDocuments()

        await server.halt()
        // The write waits for the server; its effect is visible locally at once.
        let seen = Events<[Int]>()
        let listener = collection.order(by: "n").addSnapshotListener { snapshot, _ in
            if let snapshot { seen.add(snapshot.documents.compactMap { $0.get("n") as? Int }) }
        }
        defer { listener.remove() }
        let pending = Task { try await collection.document("b").setData(["n": 2]) }
        let increment = Task { try await collection.document("a").updateData(["n": FieldValue.increment(Int64(10))]) }
        _ = await seen.next { $0 == [2, 11] }
        let local = try await collection.order(by: "n").getDocuments()
        #expect(local.metadata.isFromCache)
        #expect(local.metadata.hasPendingWrites)
        #expect(local.documents.map(\.documentID) == ["b", "a"])
        #expect(local.documents.last?.get("n") as? Int == 11)
        let b = try await collection.document("b").getDocument()
        #expect(b.metadata.hasPendingWrites && b.get("n") as? Int == 2)

        server = try await TestServer.start(directory: directory, port: port)
        try await pending.value
        try await increment.value
        let delivered = try await collection.order(by: "n").getDocuments(source: .server)
        #expect(delivered.documents.map { $0.get("n") as? Int } == [2, 11], "each queued write applied exactly once")
    }

    @Test func queueSurvivesAClientRestart() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let app = server.app()
        let path = "\(unique("restart"))/doc"
        await server.halt()
        // The first "process" queues a write and goes away before the server comes back.
        let first = Firestore.firestore(app: app)
        let queued = Events<Bool>()
        let listener = first.document(path).addSnapshotListener { snapshot, _ in
            if let snapshot { queued.add(snapshot.metadata.hasPendingWrites) }
        }
        let abandoned = Task { try await first.document(path).setData(["v": 1]) }
        _ = await queued.next { $0 }
        listener.remove()
        await first.terminate()
        _ = try? await abandoned.value
        let name = app.name
        app.delete()

        server = try await TestServer.start(directory: directory, port: port)
        // The relaunched app (same name, same storage) sends what was queued as soon as Firestore is used.
        HearthApp.configure(name: name, options: app.options)
        let relaunched = Firestore.firestore(app: try #require(HearthApp.app(name: name)))
        let deadline = ContinuousClock.now + .seconds(10)
        var value: Int?
        while ContinuousClock.now < deadline {
            value = try await relaunched.document(path).getDocument(source: .server).get("v") as? Int
            if value != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(value == 1)
    }
}
