import Foundation
import HearthCore
import HearthTesting
import Testing

/// A listen session re-checks the credential that opened it before every delivery (issue 14, item 1): once the ID
/// token has expired, or the account was disabled or deleted, or its tokens revoked, the next change is not
/// delivered; every target ends with `REMOVE … UNAUTHENTICATED` and the stream ends.
@Suite("Listen sessions end when their credential does", .timeLimit(.minutes(3)))
struct ListenCredentialTests {
    /// Signs up, opens a stream with the ID token, and watches one document until it is CURRENT.
    private static func watching(
        _ server: HearthProcess, _ path: String
    ) async throws -> (stream: ListenStream, uid: String) {
        try await server.set(path, intFields(1))
        let account = try await server.client.signUp(Accounts.uniqueEmail("listen"))
        let uid = try #require(account["localId"]?.stringValue)
        let token = try #require(account["idToken"]?.stringValue)
        let stream = try ListenStream.open(server, headers: ["Authorization: Bearer \(token)"])
        let add = try await stream.post(
            #"{"addTarget":{"targetId":1,"documents":{"documents":["\#(FS.name(path))"]}}}"#,
            headers: ["Authorization": "Bearer \(token)"])
        #expect(add.status == 200, "\(add)")
        let first = try await stream.nextBatch()
        #expect(first.contains("change \(path) [1]") && first.contains("CURRENT 1"), "\(first)")
        return (stream, uid)
    }

    /// The events after a change written once the credential went bad: a `REMOVE` with `UNAUTHENTICATED`, and
    /// never the change itself.
    private static func expectEnded(_ stream: ListenStream, after path: String, _ server: HearthProcess) async throws {
        try await server.set(path, intFields(2))
        let events = try await stream.client.next(through: { describeListen($0).hasPrefix("REMOVE") })
            .map(describeListen)
        #expect(events.last == "REMOVE 1 UNAUTHENTICATED", "\(events)")
        #expect(!events.contains { $0.hasPrefix("change") }, "a change reached a refused caller: \(events)")
    }

    @Test("an expired ID token (--id-token-lifetime 2) ends the session at the next delivery")
    func expiredToken() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--id-token-lifetime", "2"]
        try await withHearth(options) { server in
            let path = FS.unique("expiry") + "/doc"
            let (stream, _) = try await Self.watching(server, path)
            try await Task.sleep(for: .seconds(3))
            try await Self.expectEnded(stream, after: path, server)
        }
    }

    @Test(
        "a disabled, deleted or revoked account ends the session at the next delivery",
        arguments: ["disable", "delete", "revoke"])
    func accountChange(_ change: String) async throws {
        try await withHearth { server in
            let path = FS.unique(change) + "/doc"
            let (stream, uid) = try await Self.watching(server, path)
            let body: JSONValue
            switch change {
            case "disable": body = ["localId": .string(uid), "disableUser": true]
            case "delete": body = ["localId": .string(uid)]
            default:
                // Revocation counts whole seconds: the token must come from an earlier one.
                try await waitForNextSecond()
                body = ["localId": .string(uid), "validSince": .string(String(Int(Date().timeIntervalSince1970)))]
            }
            _ = try expectOK(await server.client.admin(change == "delete" ? "delete" : "update", body))
            try await Self.expectEnded(stream, after: path, server)
        }
    }
}
