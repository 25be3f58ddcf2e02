import HearthCore
import HearthTesting
import Testing

/// One wall clock, handed to the application, is what every part reads: a document's commit time, a read time, an
/// account's creation time, a tree server timestamp and a file's all come from a clock set to 2030.
@Suite("One wall clock")
struct WallClockTests {
    @Test func everyPartReadsTheInjectedClock() async throws {
        // A clock standing at 2030-01-01T00:00:00Z that nothing moves.
        let server = try InProcessServer(clock: TestClock().wallClock, logLevel: .error)
        defer { server.stop() }

        func post(_ path: String, _ body: String) async throws -> JSONValue {
            let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
            let query =
                parts.count > 1
                ? parts[1].split(separator: "&").map { item -> (String, String) in
                    let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
                    return (pair[0], pair.count > 1 ? pair[1] : "")
                } : []
            return try await server.request("POST", parts[0], query: query, json: body).json()
        }
        let root = "/v1/projects/demo/databases/(default)/documents"
        let created = try await post(root + "/c?documentId=a", #"{"fields":{}}"#)
        #expect(created["createTime"] == .string("2030-01-01T00:00:00.000000Z"), "\(created)")
        let read = try await post(
            root + ":batchGet", #"{"documents":["projects/demo/databases/(default)/documents/c/a"]}"#)
        #expect(read[0]?["readTime"] == .string("2030-01-01T00:00:00.000000Z"), "\(read)")

        let signUp = try await post(
            "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
            #"{"email":"clock@example.com","password":"secret-pw","returnSecureToken":true}"#)
        let idToken = try #require(signUp["idToken"]?.stringValue, "\(signUp)")
        let lookup = try await post(
            "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", #"{"idToken":"\#(idToken)"}"#)
        #expect(lookup["users"]?[0]?["createdAt"] == .string("1893456000000"), "\(lookup)")

        let stamped = try await server.request("PUT", "/clock/at.json", json: #"{".sv":"timestamp"}"#)
        #expect(stamped.text == "1893456000000", "the tree's server timestamp")

        let uploaded = try await post("/v0/b/demo.appspot.com/o?name=clock.txt", "{}")
        #expect(uploaded["timeCreated"] == .string("2030-01-01T00:00:00.000Z"), "\(uploaded)")
    }
}
