import Foundation
import HearthCore
import HearthTesting
import Testing

/// The console's live stream outside development mode: the documents listen channel opened with the console's
/// session cookie (as its `EventSource` opens it) lasts as long as the session — signing out ends it.
@Suite("Console stream and sign-out", .timeLimit(.minutes(2)))
struct ConsoleStreamTests {
    static let key = "console-stream-admin-key-0123456789"
    static let documents = "/v1/projects/demo/databases/(default)/documents"

    @Test("a live console stream ends when its session signs out")
    func streamEndsAtSignOut() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": Self.key]
        try await withHearth(options) { server in
            let client = server.client
            let origin = "http://127.0.0.1:\(server.port)"
            let admin = ["Authorization": "Bearer \(Self.key)"]
            let signed = try await client.request(
                "POST", "/console/session", json: #"{"adminKey":"\#(Self.key)"}"#, headers: ["Origin": origin])
            let csrf = try #require(try expectOK(signed)["csrfToken"]?.stringValue)
            let cookie = try #require(signed.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
            let console = ["Cookie": cookie, "X-Hearth-Console-CSRF": csrf, "Origin": origin]

            let channel = try ListenChannelClient(port: server.port, headers: ["Cookie: \(cookie)"])
            defer { channel.close() }
            let target =
                #"{"addTarget":{"targetId":7,"query":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"notes"}]}}}}"#
            _ = try expectOK(
                try await client.request(
                    "POST", "\(Self.documents):listen", query: [("session", channel.session)], json: target,
                    headers: console))
            _ = try await channel.next { $0.json?["targetChange"]?["targetChangeType"] == "CURRENT" }

            // Live: a write made with the admin key reaches the console's stream.
            _ = try expectOK(
                try await client.request(
                    "PATCH", "\(Self.documents)/notes/one", json: #"{"fields":{}}"#, headers: admin))
            _ = try await channel.next { $0.json?["documentChange"] != nil }
            #expect(!channel.ended)

            let out = try await client.request("DELETE", "/console/session", headers: console)
            _ = try expectOK(out)
            // The next delivery finds the session gone: the stream ends instead of carrying the change.
            _ = try expectOK(
                try await client.request(
                    "PATCH", "\(Self.documents)/notes/two", json: #"{"fields":{}}"#, headers: admin))
            try await channel.stream.waitForEnd()
            #expect(
                !channel.allEvents.contains {
                    $0.json?["documentChange"]?["document"]?["name"]?.stringValue?.hasSuffix("/two") == true
                })
        }
    }
}
