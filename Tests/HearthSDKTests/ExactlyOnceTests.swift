import Foundation
import Hearth
import HearthTestSupport
import Testing

/// A queued write the server applied but whose answer was lost is sent again with the same idempotency key and
/// applied once. The server is started with `HEARTH_TEST_EXIT_AFTER_RECEIPT=1`, so it exits right after committing
/// the first write that carries a key and before answering — the lost answer, without any timing.
@Suite("Exactly-once delivery of queued writes", .timeLimit(.minutes(1)))
struct ExactlyOnceTests {
    @Test func aFirestoreIncrementWhoseAnswerWasLostIsAppliedOnce() async throws {
        var server = try await TestServer.start(environment: ["HEARTH_TEST_EXIT_AFTER_RECEIPT": "1"])
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let db = Firestore.firestore(app: server.app())
        let reference = db.collection(unique("once")).document("counter")
        let write = Task { try await reference.setData(["n": FieldValue.increment(Int64(1))], merge: true) }
        await server.exited()

        server = try await TestServer.start(directory: directory, port: port)
        try await write.value
        let stored = try await reference.getDocument(source: .server)
        #expect(stored.get("n") as? Int == 1, "the resent increment was not applied a second time")
    }

    @Test func aTreeIncrementWhoseAnswerWasLostIsAppliedOnce() async throws {
        var server = try await TestServer.start(environment: ["HEARTH_TEST_EXIT_AFTER_RECEIPT": "1"])
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let path = "\(unique("once"))/n"
        let reference = Database.database(app: server.app()).reference(withPath: path)
        let write = Task { try await reference.setValue(ServerValue.increment(5)) }
        await server.exited()

        server = try await TestServer.start(directory: directory, port: port)
        try await write.value
        let stored = try await Database.database(app: server.app("check")).reference(withPath: path)
            .getData()
        #expect(stored.value as? Int == 5, "the resent increment was not applied a second time")
    }

    @Test func aTreeIncrementWhoseAnswerWasLostIsAppliedOnceByTheRelaunchedApp() async throws {
        var server = try await TestServer.start(environment: ["HEARTH_TEST_EXIT_AFTER_RECEIPT": "1"])
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let name = "lost-\(UUID().uuidString.prefix(8))"
        let first = Database.database(app: server.app(named: name))
        first.isPersistenceEnabled = true
        let path = "\(unique("lost"))/n"
        first.reference(withPath: path).setValue(ServerValue.increment(3)) { _, _ in }
        // The server applied it and exited before answering; the app "quits" with the write still queued.
        await server.exited()
        first.goOffline()
        HearthApp.app(name: name)?.delete()

        server = try await TestServer.start(directory: directory, port: port)
        let relaunched = Database.database(app: server.app(named: name))
        relaunched.isPersistenceEnabled = true
        let done = Events<Bool>()
        relaunched.reference(withPath: "\(path)-after").setValue(true) { error, _ in done.add(error == nil) }
        #expect(await done.next(), "acknowledged after the relaunched queue's older write")
        let stored = try await Database.database(app: server.app("check")).reference(withPath: path).getData()
        #expect(stored.value as? Int == 3, "resent with its key after the relaunch: applied once")
    }

    @Test func aFirestoreIncrementWhoseAnswerWasLostIsAppliedOnceByTheRelaunchedApp() async throws {
        var server = try await TestServer.start(environment: ["HEARTH_TEST_EXIT_AFTER_RECEIPT": "1"])
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let app = server.app()
        let before = Firestore.firestore(app: app)
        let path = "\(unique("lost"))/counter"
        let write = Task { try await before.document(path).setData(["n": FieldValue.increment(Int64(3))], merge: true) }
        await server.exited()
        // The app "quits" with the commit still queued on disk.
        await before.terminate()
        await #expect(throws: FirestoreErrorCode.self) { try await write.value }

        server = try await TestServer.start(directory: directory, port: port)
        let relaunched = Firestore.firestore(app: app)
        try await relaunched.document("\(path)-after").setData(["done": true])
        let stored = try await relaunched.document(path).getDocument(source: .server)
        #expect(stored.get("n") as? Int == 3, "resent with its key after the relaunch: applied once")
    }
}
