import Foundation
import Hearth
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
}
