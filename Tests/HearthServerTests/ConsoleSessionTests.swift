import HearthCore
import HearthHTTP
import HearthTesting
import Testing

/// The console's admin session outside development mode (`ConsoleSessions`, judged by `RequestAuthenticator`):
/// how long it lasts, how many there are, how fast wrong keys are refused, what its cookie says, which requests it
/// stands for the admin on, and which cross-site requests it refuses — on the in-process server and a test clock.
@Suite("Console sessions")
struct ConsoleSessionTests {
    static let key = "console-session-admin-key-0123456789"
    static let host = "console.test:8080"
    static let document = "/v1/projects/demo/databases/(default)/documents/notes/a"

    /// A signed-in session: its cookie header and CSRF token.
    struct Session {
        let cookie: String
        let csrf: String
        let setCookie: String
    }

    /// An in-process server whose requests come from 127.0.0.1, which `trustedProxies` may list as a proxy.
    static func server(_ clock: TestClock, trustedProxies: String = "") throws -> InProcessServer {
        let proxies = try TrustedProxies(parsing: trustedProxies)
        return try InProcessServer(clock: clock.wallClock) { configuration in
            configuration.devMode = false
            configuration.accounts.adminKey = key
            configuration.trustedProxies = proxies
        }
    }

    static func signIn(
        _ server: InProcessServer, key: String = key, headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        try await server.request(
            "POST", "/console/session", headers: ["Host": host, "Origin": "http://\(host)"].merging(headers) { $1 },
            json: #"{"adminKey":"\#(key)"}"#)
    }

    static func session(_ server: InProcessServer, headers: [String: String] = [:]) async throws -> Session {
        let answer = try await signIn(server, headers: headers)
        #expect(answer.status == 200, "\(answer)")
        let setCookie = answer.headers["set-cookie"] ?? ""
        let pair = setCookie.split(separator: ";").first.map(String.init) ?? ""
        return Session(
            cookie: pair, csrf: try answer.json()["csrfToken"]?.stringValue ?? "", setCookie: setCookie)
    }

    /// `GET /console` with the session's cookie: the console (with its CSRF token) or, signed out, the sign-in page.
    static func opensConsole(_ server: InProcessServer, _ session: Session) async throws -> Bool {
        let page = try await server.request("GET", "/console", headers: ["Cookie": session.cookie])
        let text = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200)
        return text.contains(session.csrf) && !text.contains("id=\"sign-in\"")
    }

    @Test("a session ends 8 hours after sign-in: the console asks to sign in again and its calls are refused")
    func expiry() async throws {
        let clock = TestClock()
        let server = try Self.server(clock)
        defer { server.stop() }
        let session = try await Self.session(server)
        #expect(session.setCookie.contains("Max-Age=28800"), "\(session.setCookie)")
        clock.advance(by: .seconds(8 * 3600 - 1))
        #expect(try await Self.opensConsole(server, session))
        clock.advance(by: .seconds(2))
        #expect(!(try await Self.opensConsole(server, session)))
        let call = try await server.request(
            "GET", Self.document, headers: ["Cookie": session.cookie, "X-Hearth-Console-CSRF": session.csrf])
        #expect(call.status == 401, "\(call)")
    }

    @Test("at most 64 sessions: the 65th sign-in ends the oldest, and only it")
    func oldestGoes() async throws {
        let clock = TestClock()
        let server = try Self.server(clock)
        defer { server.stop() }
        var sessions: [Session] = []
        for _ in 0..<65 {
            sessions.append(try await Self.session(server))
            clock.advance(by: .seconds(1))
        }
        #expect(!(try await Self.opensConsole(server, sessions[0])))
        #expect(try await Self.opensConsole(server, sessions[1]))
        #expect(try await Self.opensConsole(server, sessions[64]))
    }

    @Test("after 10 wrong keys in a minute even the right key waits, until the minute has passed")
    func throttling() async throws {
        let clock = TestClock()
        let server = try Self.server(clock)
        defer { server.stop() }
        for _ in 0..<10 {
            let wrong = try await Self.signIn(server, key: "not-the-key")
            #expect(wrong.status == 401, "\(wrong)")
        }
        let throttled = try await Self.signIn(server)
        #expect(throttled.status == 429, "\(throttled)")
        #expect(try throttled.json()["error"]?["status"] == "RESOURCE_EXHAUSTED", "\(throttled)")
        #expect(throttled.headers["set-cookie"] == nil)
        clock.advance(by: .seconds(61))
        let signed = try await Self.signIn(server)
        #expect(signed.status == 200, "\(signed)")
    }

    @Test("the cookie is HttpOnly and SameSite=Strict, and Secure when a TLS proxy says the request came over https")
    func secureBehindTLS() async throws {
        let server = try Self.server(TestClock(), trustedProxies: "127.0.0.1")
        defer { server.stop() }
        let plain = try await Self.session(server)
        #expect(plain.setCookie.contains("HttpOnly") && plain.setCookie.contains("SameSite=Strict"))
        #expect(!plain.setCookie.contains("Secure"), "\(plain.setCookie)")
        let proxied = try await Self.session(server, headers: ["X-Forwarded-Proto": "https"])
        #expect(proxied.setCookie.hasSuffix("; Secure"), "\(proxied.setCookie)")
        // Signing out clears the cookie on the same terms.
        let out = try await server.request(
            "DELETE", "/console/session",
            headers: [
                "Cookie": proxied.cookie, "X-Hearth-Console-CSRF": proxied.csrf, "X-Forwarded-Proto": "https",
                "Host": Self.host,
            ])
        #expect(out.status == 200, "\(out)")
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(out.headers["set-cookie"]?.hasSuffix("; Secure") == true)
    }

    @Test("X-Forwarded-Proto from a peer that is not a trusted proxy is the client's claim: the cookie is not Secure")
    func forwardedProtoOnlyFromTrustedProxies() async throws {
        for trusted in ["", "10.0.0.0/8"] {
            let server = try Self.server(TestClock(), trustedProxies: trusted)
            defer { server.stop() }
            let claimed = try await Self.session(server, headers: ["X-Forwarded-Proto": "https"])
            #expect(!claimed.setCookie.contains("Secure"), "trusting [\(trusted)]: \(claimed.setCookie)")
        }
        // A trusted proxy's own entry is the rightmost: what the client wrote before it does not count.
        let server = try Self.server(TestClock(), trustedProxies: "127.0.0.1")
        defer { server.stop() }
        let appended = try await Self.session(server, headers: ["X-Forwarded-Proto": "https, http"])
        #expect(!appended.setCookie.contains("Secure"), "\(appended.setCookie)")
    }

    @Test("a change is the admin's only with the CSRF token and this server's Origin; a forged one is 403")
    func crossSiteChanges() async throws {
        let server = try Self.server(TestClock())
        defer { server.stop() }
        let session = try await Self.session(server)
        let body = #"{"fields":{"n":{"integerValue":"1"}}}"#
        func patch(_ headers: [String: String]) async throws -> HTTPResult {
            try await server.request(
                "PATCH", Self.document, headers: ["Cookie": session.cookie, "Host": Self.host].merging(headers) { $1 },
                json: body)
        }
        for forged in [
            ["Origin": "https://evil.example.net"],
            ["Origin": "https://evil.example.net", "X-Hearth-Console-CSRF": session.csrf],
            ["Origin": "null", "X-Hearth-Console-CSRF": session.csrf],
            ["Origin": "http://\(Self.host).evil.example.net", "X-Hearth-Console-CSRF": session.csrf],
            ["Origin": "http://\(Self.host)", "X-Hearth-Console-CSRF": "wrong-token"],
        ] {
            let refused = try await patch(forged)
            #expect(refused.status == 403, "\(forged): \(refused)")
        }
        let made = try await patch(["Origin": "http://\(Self.host)", "X-Hearth-Console-CSRF": session.csrf])
        #expect(made.status == 200, "\(made)")
        // A sign-in posted from another site's page is refused too (it would sign the browser into that session).
        let foreign = try await Self.signIn(server, headers: ["Origin": "https://evil.example.net"])
        #expect(foreign.status == 403, "\(foreign)")
    }

    @Test("the cookie alone is not the admin: a read without the CSRF token is judged as carrying no credential")
    func cookieAloneIsNoCredential() async throws {
        let server = try Self.server(TestClock())
        defer { server.stop() }
        let made = try await server.request(
            "PATCH", Self.document, headers: ["Authorization": "Bearer \(Self.key)"],
            json: #"{"fields":{"n":{"integerValue":"1"}}}"#)
        #expect(made.status == 200, "\(made)")
        let session = try await Self.session(server)
        let console = try await server.request(
            "GET", Self.document, headers: ["Cookie": session.cookie, "X-Hearth-Console-CSRF": session.csrf])
        #expect(console.status == 200, "\(console)")
        // A link followed or a page of this origin reading without the token: the rules judge it, unauthenticated.
        let cookieOnly = try await server.request("GET", Self.document, headers: ["Cookie": session.cookie])
        #expect(cookieOnly.status == 403, "\(cookieOnly)")
        let users = try await server.request(
            "GET", "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:batchGet",
            headers: ["Cookie": session.cookie])
        #expect(users.status == 403, "\(users)")
        let indexesWithToken = try await server.request(
            "GET", "/v1/projects/demo/databases/(default)/collectionGroups/-/indexes",
            headers: ["Cookie": session.cookie, "X-Hearth-Console-CSRF": session.csrf])
        #expect(indexesWithToken.status == 200, "\(indexesWithToken)")
        let indexesCookieOnly = try await server.request(
            "GET", "/v1/projects/demo/databases/(default)/collectionGroups/-/indexes",
            headers: ["Cookie": session.cookie])
        #expect(indexesCookieOnly.status == 403, "\(indexesCookieOnly)")
    }
}
