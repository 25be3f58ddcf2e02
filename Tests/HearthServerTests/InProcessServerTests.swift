import HearthCore
import HearthTesting
import Testing

/// HearthTesting's in-process harness: requests answered by the application's own responder without a socket, on a
/// clock the test moves.
@Suite("In-process server")
struct InProcessServerTests {
    static let root = "/v1/projects/demo/databases/(default)/documents"

    @Test("documents are stamped with the test clock's time, and move when it moves")
    func commitTimesFollowTheTestClock() async throws {
        let clock = TestClock()
        let server = try InProcessServer(clock: clock.wallClock)
        defer { server.stop() }
        let created = try await server.request(
            "POST", Self.root + "/c", query: [("documentId", "a")], json: #"{"fields":{"n":{"integerValue":"1"}}}"#)
        #expect(created.status == 200, "\(created)")
        #expect(try created.json()["createTime"] == .string("2030-01-01T00:00:00.000000Z"), "\(created)")
        clock.advance(by: .seconds(90))
        let updated = try await server.request(
            "PATCH", Self.root + "/c/a", json: #"{"fields":{"n":{"integerValue":"2"}}}"#)
        #expect(try updated.json()["updateTime"] == .string("2030-01-01T00:01:30.000000Z"), "\(updated)")
        let read = try await server.request("GET", Self.root + "/c/a")
        #expect(try read.json()["fields"]?["n"]?["integerValue"] == .string("2"), "\(read)")
        #expect(try read.json()["createTime"] == .string("2030-01-01T00:00:00.000000Z"), "\(read)")
    }

    @Test("a failed request answers in its API's envelope and leaves one log line with its route")
    func failuresAnswerInTheirEnvelope() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let missing = try await server.request("GET", Self.root + "/c/missing")
        #expect(missing.status == 404)
        #expect(try missing.json()["error"]?["status"] == .string("NOT_FOUND"), "\(missing)")
        let tree = try await server.request("PUT", "/t.json", json: "{")
        #expect(tree.status == 400)
        #expect(try tree.json()["error"]?.stringValue != nil, "the tree's {\"error\": …} shape: \(tree)")
        let failed = server.logLines.filter { $0["status"] == .integer(404) || $0["status"] == .integer(400) }
        #expect(failed.count == 2, "\(server.logLines)")
        #expect(failed.compactMap { $0["route"]?.stringValue }.allSatisfy { !$0.isEmpty })
    }

    @Test("a stream needs the live server: the in-process harness says so instead of hanging")
    func streamsAreRefused() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        await #expect(throws: HarnessError.self) {
            _ = try await server.request("GET", "/t.json", headers: ["Accept": "text/event-stream"])
        }
    }
}
