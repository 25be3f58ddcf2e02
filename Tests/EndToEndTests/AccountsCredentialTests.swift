import Foundation
import HearthCore
import HearthTesting
import Testing

/// Accounts defects of issue 14: `continueUrl` limited to authorized domains (item 4), mail links never built from
/// the request's `Host` (item 4), and a disabled account's refresh answered `USER_DISABLED` (item 5).
@Suite("Accounts: authorized domains and disabled refreshes", .timeLimit(.minutes(3)))
struct AccountsCredentialTests {
    private static func reset(
        _ client: HTTPClient, _ email: String, continueURL: String, headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        try await client.request(
            "POST", "\(Accounts.toolkit)/accounts:sendOobCode", query: [("key", "test-key")],
            json: #"{"requestType":"PASSWORD_RESET","email":"\#(email)","continueUrl":"\#(continueURL)"}"#,
            headers: headers)
    }

    @Test("continueUrl: only authorized domains (--authorized-domains, localhost in --dev); else UNAUTHORIZED_DOMAIN")
    func authorizedDomains() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--authorized-domains", "app.example.com, Other.example.org"]
        try await withHearth(options) { server in
            let client = server.client
            let email = Accounts.uniqueEmail("domains")
            _ = try await client.signUp(email)
            for foreign in [
                "https://evil.example/next", "https://app.example.com.evil.example/", "https://x@evil.example",
            ] {
                expectAuthError(try await Self.reset(client, email, continueURL: foreign), "UNAUTHORIZED_DOMAIN")
            }
            for allowed in [
                "https://app.example.com/done", "https://other.example.org:8443/x", "http://localhost:3000/",
                "http://127.0.0.1/back",
            ] {
                _ = try expectOK(await Self.reset(client, email, continueURL: allowed))
            }
        }
    }

    @Test("a foreign continueUrl is UNAUTHORIZED_DOMAIN with no flag at all (dev mode allows only localhost)")
    func foreignContinueURL() async throws {
        try await withHearth { server in
            let email = Accounts.uniqueEmail("foreign")
            _ = try await server.client.signUp(email)
            expectAuthError(
                try await Self.reset(server.client, email, continueURL: "https://evil.example/next"),
                "UNAUTHORIZED_DOMAIN")
            _ = try expectOK(await Self.reset(server.client, email, continueURL: "http://localhost:5173/"))
        }
    }

    @Test("in --dev, mail links start with the server's own address, whatever the Host header says")
    func linksIgnoreHost() async throws {
        try await withHearth { server in
            let client = server.client
            let email = Accounts.uniqueEmail("host")
            _ = try await client.signUp(email)
            _ = try expectOK(
                await Self.reset(
                    client, email, continueURL: "http://localhost/", headers: ["Host": "evil.example:\(server.port)"]))
            let listing = try expectOK(await client.get("/emulator/v1/projects/demo/oobCodes"))
            let link = try #require(listing["oobCodes"]?.arrayValue?.last { $0["email"] == .string(email) }?["oobLink"])
            #expect(link.stringValue?.hasPrefix(server.baseURL + "/") == true, "\(link)")
        }
    }

    @Test("the action page neither redirects nor links to a foreign continueUrl")
    func actionPageIgnoresForeignContinueURL() async throws {
        try await withHearth { server in
            let client = server.client
            let email = Accounts.uniqueEmail("action")
            let account = try await client.signUp(email)
            _ = try expectOK(
                await client.accounts(
                    "sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": account["idToken"] ?? ""]))
            let listing = try expectOK(await client.get("/emulator/v1/projects/demo/oobCodes"))
            let code = try #require(listing["oobCodes"]?.arrayValue?.last { $0["email"] == .string(email) }?["oobCode"])
            // Development mode's page redirects to an authorized continueUrl; a foreign one is dropped, so the answer
            // is the page itself (a redirect would have been followed to a host that does not resolve).
            let applied = try await client.request(
                "GET", "/emulator/action",
                query: [
                    ("mode", "verifyEmail"), ("oobCode", code.stringValue ?? ""),
                    ("continueUrl", "https://evil.example/phish"),
                ])
            #expect(applied.status == 200, "\(applied)")
            #expect(!applied.text.contains("evil.example"), "\(applied)")
        }
    }

    @Test("refreshing a disabled account's token answers USER_DISABLED; re-enabling does not revive it")
    func refreshDisabled() async throws {
        try await withHearth { server in
            let client = server.client
            let account = try await client.signUp(Accounts.uniqueEmail("disabled"))
            let uid = try #require(account["localId"]?.stringValue)
            let refreshToken = try #require(account["refreshToken"]?.stringValue)
            func refresh() async throws -> HTTPResult {
                try await client.request(
                    "POST", "/securetoken.googleapis.com/v1/token", query: [("key", "k")],
                    body: Array("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
                    headers: ["Content-Type": "application/x-www-form-urlencoded"])
            }
            _ = try expectOK(await refresh())
            // Revocation counts whole seconds: the refresh token must come from an earlier one.
            try await waitForNextSecond()
            _ = try expectOK(await client.admin("update", ["localId": .string(uid), "disableUser": true]))
            expectAuthError(try await refresh(), "USER_DISABLED")
            _ = try expectOK(await client.admin("update", ["localId": .string(uid), "disableUser": false]))
            expectAuthError(try await refresh(), "TOKEN_EXPIRED")
        }
    }
}
