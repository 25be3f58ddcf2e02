import Foundation
import Hearth
import HearthTestSupport
import Testing

/// A local store that cannot be used (here: a file that is not a database where the cache should be) must not cost
/// the app its writes: they reach the server as they do without persistence, and their completions report it.
@Suite("An unusable local store", .sharedServer, .timeLimit(.minutes(1)))
struct UnusableStorageTests {
    @Test func writesStillReachTheServerWhenTheCacheFileIsNotADatabase() async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("unusable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: storage) }
        let name = unique("broken")
        for kind in ["firestore", "database"] {
            try Data("this is not a database".utf8)
                .write(to: storage.appendingPathComponent("\(kind)-\(name).demo.sqlite"))
        }
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: try SharedServer.server.baseURL, projectID: "demo", apiKey: "test", storageDirectory: storage
            ))
        let app = try #require(HearthApp.app(name: name))
        let documents = Firestore.firestore(app: app).collection(unique("notes"))
        try await documents.document("a").setData(["n": 1])
        let reader = Firestore.firestore(app: try SharedServer.server.app()).collection(documents.path)
        #expect(try await reader.document("a").getDocument(source: .server).get("n") as? Int == 1)

        let database = Database.database(app: app)
        database.isPersistenceEnabled = true  // the tree's cache and queue in the unusable file
        let tree = database.reference().child(unique("notes"))
        try await tree.setValue(["n": 2])
        let treeReader = Database.database(app: try SharedServer.server.app()).reference().child(tree.key ?? "")
        #expect(try await treeReader.child("n").getData().value as? Int == 2)
    }
}
