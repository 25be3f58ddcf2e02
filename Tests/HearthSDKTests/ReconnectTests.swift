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

    /// The server ends a listen session once its ID token has expired (`REMOVE … UNAUTHENTICATED`, then the end of
    /// the stream); the SDK signs in afresh and re-adds the target, so the listener keeps receiving changes and never
    /// hears of an error.
    @Test func listenerResumesAfterItsTokenExpiredAndTheServerRefusedIt() async throws {
        let server = try await TestServer.start(arguments: ["--id-token-lifetime", "2"])
        defer { server.stop() }
        let app = server.app()
        _ = try await Auth.auth(app: app).signInAnonymously()
        let collection = Firestore.firestore(app: app).collection(unique("expiring"))
        try await collection.document("a").setData(["n": 1])
        let seen = Mutex<(lists: [[String]], errors: [String])>(([], []))
        let registration = collection.order(by: "n").addSnapshotListener { snapshot, error in
            seen.withLock { seen in
                if let snapshot { seen.lists.append(snapshot.documents.map(\.documentID)) }
                if let error { seen.errors.append("\(error)") }
            }
        }
        defer { registration.remove() }
        try await waitFor { seen.withLock { $0.lists.last } == ["a"] }

        // Let the session's token expire; the next delivery is refused and the stream ends.
        try await Task.sleep(for: .seconds(3))
        let other = server.app("other")
        _ = try await Auth.auth(app: other).signInAnonymously()
        try await Firestore.firestore(app: other).collection(collection.path).document("b").setData(["n": 2])
        try await waitFor { seen.withLock { $0.lists.last } == ["a", "b"] }
        #expect(seen.withLock { $0.errors }.isEmpty)
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
