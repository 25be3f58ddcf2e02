import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

@Suite("Reconnecting after a server restart")
struct ReconnectTests {
    @Test func queryListenerResumesAfterRestart() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let db = Firestore.firestore(app: server.app())
        let collection = db.collection(unique("resume"))
        try await collection.document("a").setData(["n": 1])
        let seen = Mutex<[[String]]>([])
        let registration = collection.order(by: "n").addSnapshotListener { snapshot, _ in
            if let snapshot { seen.withLock { $0.append(snapshot.documents.map(\.documentID)) } }
        }
        defer { registration.remove() }
        try await waitFor { seen.withLock { $0.last } == ["a"] }

        await server.halt()
        server = try await TestServer.start(directory: directory, port: port)
        // A write by the same client after the restart reaches the listener through the re-added target.
        try await collection.document("b").setData(["n": 2])
        try await waitFor { seen.withLock { $0.last } == ["a", "b"] }
    }

    func waitFor(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out")
    }
}
