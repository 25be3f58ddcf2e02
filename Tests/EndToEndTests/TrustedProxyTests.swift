import Foundation
import HearthCore
import HearthTesting
import Testing

/// Behind a proxy every connection comes from the proxy's address; `--trusted-proxies` makes the per-address auth
/// limit count the clients its `X-Forwarded-For` names instead, by the rightmost-untrusted rule.
@Suite("Per-address limits behind a trusted proxy")
struct TrustedProxyTests {
    /// Two auth attempts per address, and `arguments`.
    private static func server(_ arguments: [String]) -> HearthProcess.Options {
        var options = HearthProcess.Options()
        options.extraArguments = ["--auth-rate-limits", "address=2/3600"] + arguments
        return options
    }

    /// One auth attempt (a password sign-in of an unknown account, so no account limit comes into it) with
    /// `forwardedFor` as its `X-Forwarded-For`: its error code, which is `TOO_MANY_ATTEMPTS_TRY_LATER` once the
    /// address the server counts it against has spent its allowance.
    private static func attempt(_ server: HearthProcess, forwardedFor: String?) async throws -> String {
        let result = try await server.client.request(
            "POST", "\(Accounts.toolkit)/accounts:signInWithPassword", query: [("key", "test-key")],
            body: Array(
                JSONValue.object([
                    "email": .string(Accounts.uniqueEmail("proxy")), "password": "secret-password",
                ]).jsonString.utf8),
            headers: forwardedFor.map { ["X-Forwarded-For": $0] } ?? [:])
        #expect(result.status == 400, "an attempt is refused as a client error, never a 500: \(result)")
        return (try? JSONParser.parse(result.body))?["error"]?["message"]?.stringValue ?? "\(result)"
    }

    /// Makes one attempt and expects it `refused` (`TOO_MANY_ATTEMPTS_TRY_LATER`) or not.
    private static func expectAttempt(
        _ server: HearthProcess, _ forwardedFor: String?, refused: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let message = try await attempt(server, forwardedFor: forwardedFor)
        let what = "X-Forwarded-For \(forwardedFor ?? "(none)") answered \(message)"
        if refused {
            #expect(message == "TOO_MANY_ATTEMPTS_TRY_LATER", "\(what)", sourceLocation: sourceLocation)
        } else {
            #expect(message == "EMAIL_NOT_FOUND", "\(what)", sourceLocation: sourceLocation)
        }
    }

    @Test("with --trusted-proxies 127.0.0.1 each forwarded client has its own allowance")
    func trustedProxy() async throws {
        try await withHearth(Self.server(["--trusted-proxies", "127.0.0.1"])) { server in
            let first = "203.0.113.1"
            try await Self.expectAttempt(server, first, refused: false)
            try await Self.expectAttempt(server, first, refused: false)
            try await Self.expectAttempt(server, first, refused: true)
            // Another client behind the same proxy is not refused because the first ran out.
            try await Self.expectAttempt(server, "203.0.113.2", refused: false)
            // The same client in another spelling is the same client.
            try await Self.expectAttempt(server, "::ffff:203.0.113.1", refused: true)

            // A spoofed chain: the client wrote someone else's address, the proxy appended the real one. The
            // rightmost untrusted address is the one the proxy saw, so the client neither escapes its own limit by
            // prepending addresses…
            try await Self.expectAttempt(server, "198.51.100.9, \(first)", refused: true)
            // …nor spends another client's allowance by naming it.
            try await Self.expectAttempt(server, "\(first), 203.0.113.3", refused: false)
            // A trusted address at the right end (a second proxy of ours) is skipped.
            try await Self.expectAttempt(server, "\(first), 127.0.0.1", refused: true)

            // A malformed header counts against the peer (127.0.0.1), like no header: one allowance for all of them.
            try await Self.expectAttempt(server, "not an address", refused: false)
            try await Self.expectAttempt(server, nil, refused: false)
            try await Self.expectAttempt(server, "203.0.113.4, 999.1.1.1", refused: true)
            try await Self.expectAttempt(server, nil, refused: true)
        }
    }

    @Test("without --trusted-proxies X-Forwarded-For is ignored: every client shares the peer's allowance")
    func noTrustedProxy() async throws {
        try await withHearth(Self.server([])) { server in
            try await Self.expectAttempt(server, "203.0.113.1", refused: false)
            try await Self.expectAttempt(server, "203.0.113.1", refused: false)
            try await Self.expectAttempt(server, "203.0.113.2", refused: true)
            try await Self.expectAttempt(server, nil, refused: true)
        }
    }

    @Test("an upload session's URL says https only when a trusted proxy says the client came over TLS")
    func uploadLinksFollowTheTrustedProxysScheme() async throws {
        for (arguments, scheme) in [(["--trusted-proxies", "127.0.0.1"], "https://"), ([], "http://")] {
            var options = HearthProcess.Options()
            options.extraArguments = arguments
            try await withHearth(options) { server in
                let started = try await server.client.request(
                    "POST", Storage.objects(), query: [("name", Storage.unique("proxied"))], json: "{}",
                    headers: [
                        "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                        "X-Forwarded-Proto": "https",
                    ])
                #expect(started.status == 200, "\(started)")
                let url = started.headers["x-goog-upload-url"] ?? ""
                // Behind a TLS proxy a plain-HTTP URL would send the next chunk around TLS; from any other peer the
                // header is the client's own claim.
                #expect(url.hasPrefix(scheme), "\(arguments): \(url)")
            }
        }
    }
}
