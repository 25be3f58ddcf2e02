import Foundation
import HearthCore
import HearthTesting
import Testing

/// `/__/auth/handler`: the server runs a provider's code flow for a web page — on to the provider with state, PKCE
/// and a nonce, back with a code, the code redeemed, the page given the tokens in its URL's fragment. Played here
/// hop by hop as a browser would (redirects not followed, the cookie carried by hand), with the fake provider.
@Suite("The /__/auth/handler browser sign-in")
struct AuthHandlerTests {
    static let page = "https://app.example/signed-in"

    /// One GET as a browser sends it: status, headers (names lower-cased; `set-cookie` values joined by newlines).
    static func browserGet(
        _ server: HearthProcess, _ target: String, cookie: String? = nil
    ) throws -> (status: Int, headers: [String: String]) {
        let socket = try RawSocket(port: server.port)
        var head = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n"
        if let cookie { head += "Cookie: \(cookie)\r\n" }
        try socket.send(head + "\r\n")
        let reply = socket.readAll()
        var headers: [String: String] = [:]
        let lines = reply.text.components(separatedBy: "\r\n\r\n").first?.components(separatedBy: "\r\n") ?? []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + "\n" + value } ?? value
        }
        return (reply.status, headers)
    }

    /// The fragment of `location` as name → value.
    static func fragment(_ location: String) -> [String: String] {
        let text = location.split(separator: "#", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            fields[parts[0]] = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : ""
        }
        return fields
    }

    static func start(
        _ server: HearthProcess, redirect: String = page
    ) throws -> (status: Int, headers: [String: String]) {
        try browserGet(
            server,
            "/__/auth/handler?apiKey=web-key&providerId=oidc.fake&redirectUrl=\(HTTPClient.encodeQuery(redirect))")
    }

    @Test("start → provider → back: the page gets the user's tokens in its fragment; the redirect works once")
    func fullFlow() async throws {
        try await Providers.withServer(extraArguments: ["--authorized-domains", "app.example"]) { server, idp in
            let handler = server.baseURL + "/__/auth/handler"
            let started = try Self.start(server)
            #expect(started.status == 303)
            let authURI = try #require(started.headers["location"])
            #expect(authURI.hasPrefix(idp.baseURL + "/authorize?"), "\(authURI)")
            let items = URLComponents(string: authURI)?.queryItems ?? []
            func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
            #expect(item("redirect_uri") == handler)
            #expect(item("code_challenge_method") == "S256")
            let setCookie = try #require(started.headers["set-cookie"])
            #expect(setCookie.hasPrefix("hearth_auth_handler="))
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
            #expect(setCookie.contains("Path=/__/auth/handler"))
            let cookie = String(setCookie.split(separator: ";")[0])

            // The provider's login page, played by the fake: a code for this redirect_uri and PKCE challenge.
            let code = idp.authorizationCode(
                clientID: "client-1", clientSecret: Providers.oidcSecret, redirectURI: handler,
                codeChallenge: try #require(item("code_challenge")),
                idToken: try idp.idToken([
                    "sub": "web-1", "nonce": .string(try #require(item("nonce"))), "email": "web@example.com",
                    "email_verified": true,
                ]))
            let back = "/__/auth/handler?code=\(code)&state=\(HTTPClient.encodeQuery(try #require(item("state"))))"
            let finished = try Self.browserGet(server, back, cookie: cookie)
            #expect(finished.status == 303)
            let location = try #require(finished.headers["location"])
            #expect(location.hasPrefix(Self.page + "#"), "\(location)")
            let fields = Self.fragment(location)
            #expect(fields["providerId"] == "oidc.fake")
            #expect(fields["isNewUser"] == "true")
            #expect(fields["email"] == "web@example.com")
            #expect(fields["refreshToken"]?.isEmpty == false)
            #expect(fields["localId"]?.isEmpty == false)
            #expect(finished.headers["set-cookie"]?.contains("Max-Age=0") == true, "the cookie is cleared")

            // The ID token is the user's: Identity Toolkit looks the account up with it.
            let idToken = try #require(fields["idToken"])
            let lookup = try expectOK(await server.client.accounts("lookup", ["idToken": .string(idToken)]))
            let user = lookup["users"]?.arrayValue?.first
            #expect(user?["localId"]?.stringValue == fields["localId"])
            #expect(user?["providerUserInfo"]?.arrayValue?.first?["providerId"] == "oidc.fake")

            // The same redirect again: the session ended, so the page gets an error and nobody new is signed in.
            let replay = try Self.browserGet(server, back, cookie: cookie)
            #expect(replay.status == 303)
            #expect(Self.fragment(replay.headers["location"] ?? "")["error"] == "INVALID_IDP_RESPONSE")
            #expect(try await server.client.accountCount() == 1)
        }
    }

    @Test("refused: a page off the authorized domains, a return without the cookie, a provider's error")
    func refusals() async throws {
        try await Providers.withServer(extraArguments: ["--authorized-domains", "app.example"]) { server, idp in
            let foreign = try Self.start(server, redirect: "https://evil.example/steal")
            #expect(foreign.status == 400)
            #expect(foreign.headers["location"] == nil && foreign.headers["set-cookie"] == nil)
            let scriptURL = try Self.start(server, redirect: "javascript:alert(1)")
            #expect(scriptURL.status == 400)

            let started = try Self.start(server)
            let items = URLComponents(string: started.headers["location"] ?? "")?.queryItems ?? []
            let state = items.first { $0.name == "state" }?.value ?? ""
            let noCookie = try Self.browserGet(server, "/__/auth/handler?code=x&state=\(state)")
            #expect(noCookie.status == 400)
            #expect(noCookie.headers["location"] == nil)

            // A cookie whose page was altered to another site is refused, not followed.
            let forged = "hearth_auth_handler=abc." + Base64URL.encode(Array("https://evil.example/".utf8))
            let tampered = try Self.browserGet(server, "/__/auth/handler?code=x&state=\(state)", cookie: forged)
            #expect(tampered.status == 400 && tampered.headers["location"] == nil)

            let cookie = String((started.headers["set-cookie"] ?? "").split(separator: ";")[0])
            let denied = try Self.browserGet(
                server, "/__/auth/handler?error=access_denied&state=\(state)", cookie: cookie)
            #expect(denied.status == 303)
            let fields = Self.fragment(denied.headers["location"] ?? "")
            #expect(fields["error"] == "INVALID_IDP_RESPONSE")
            #expect(fields["error_description"]?.contains("access_denied") == true)
            #expect(fields["idToken"] == nil)

            let unknownProvider = try Self.browserGet(
                server,
                "/__/auth/handler?providerId=nope.example&redirectUrl=\(HTTPClient.encodeQuery(Self.page))")
            #expect(unknownProvider.status == 303)
            #expect(Self.fragment(unknownProvider.headers["location"] ?? "")["error"]?.isEmpty == false)
            #expect(try await server.client.accountCount() == 0)
        }
    }
}
