import Foundation
import HearthCore
import HearthCrypto
import HearthHTTP
import HearthTesting

/// An identity provider written for the tests, on 127.0.0.1: an OpenID issuer (discovery document and a JWKS whose
/// keys can rotate), a Facebook-shaped Graph API (`/debug_token`, `/me`) and a GitHub-shaped REST API (`/user`,
/// `/user/emails`). It mints what a real provider would — RS256 and ES256 ID tokens, access tokens — so the
/// server's production verification code is what the tests exercise.
final class FakeIdentityProvider: Sendable {
    /// A Facebook user access token: the app it was issued to and the user it speaks for.
    struct FacebookToken: Sendable {
        var appID: String
        var user: JSONValue
    }

    /// A GitHub access token: its `/user` and `/user/emails` answers.
    struct GitHubToken: Sendable {
        var user: JSONValue
        var emails: JSONValue
    }

    /// An authorization code the provider handed a browser, and what redeeming it needs.
    struct PendingCode: Sendable {
        var clientID: String
        var clientSecret: String
        var redirectURI: String
        var codeChallenge: String
        /// OpenID Connect: the ID token the code buys.
        var idToken: String
        /// Facebook and GitHub: the access token the code buys instead.
        var accessToken: String? = nil
    }

    private struct State: Sendable {
        var rsaKeys: [String: RSAPrivateKey] = [:]
        var ecKeys: [String: ECPrivateKey] = [:]
        /// The key IDs the JWKS lists.
        var published: [String] = []
        var jwksFetches = 0
        var discoveryFetches = 0
        var facebookApps: [String: String] = [:]
        var facebookTokens: [String: FacebookToken] = [:]
        var githubTokens: [String: GitHubToken] = [:]
        var codes: [String: PendingCode] = [:]
    }

    private let server: HTTPServer
    private let state: Locked<State>
    /// `http://127.0.0.1:PORT`: the issuer, and the base of every endpoint.
    let baseURL: String

    /// Starts the provider with one RSA key (`rsa-1`) and one P-256 key (`ec-1`) published.
    init() throws {
        let state = Locked(State())
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 2
        let server = HTTPServer(
            configuration: configuration,
            responder: HTTPClosureResponder { request in .response(FakeIdentityProvider.answer(request, state)) })
        try server.start()
        self.server = server
        self.state = state
        baseURL = "http://127.0.0.1:\(server.port)"
        try addRSAKey("rsa-1")
        try addECKey("ec-1")
    }

    /// Stops answering: connections are refused from now on (the provider is down).
    func stop() { server.stop(gracePeriod: .zero) }

    /// A new RSA key, published in the JWKS unless `publish` is false.
    func addRSAKey(_ id: String, publish: Bool = true) throws {
        let key = try RSAPrivateKey.generate()
        state.withLock { state in
            state.rsaKeys[id] = key
            if publish { state.published.append(id) }
        }
    }

    /// A new P-256 key, published in the JWKS.
    func addECKey(_ id: String) throws {
        let key = try ECPrivateKey.generate()
        state.withLock { state in
            state.ecKeys[id] = key
            state.published.append(id)
        }
    }

    /// Key rotation: the JWKS lists only `ids` from now on.
    func publishOnly(_ ids: [String]) { state.withLock { $0.published = ids } }

    /// How many times the JWKS was fetched.
    var jwksFetches: Int { state.withLock { $0.jwksFetches } }

    /// An ID token signed with key `keyID` (RS256 for RSA keys, ES256 for EC keys) carrying `claims` over the
    /// defaults: this issuer, `aud`, `sub`, and a lifetime of an hour from now.
    func idToken(
        keyID: String = "rsa-1", audience: String = "client-1", _ claims: [String: JSONValue] = [:]
    ) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        var payload: [String: JSONValue] = [
            "iss": .string(baseURL), "aud": .string(audience), "sub": "fake-user-1", "iat": .integer(now),
            "exp": .integer(now + 3600),
        ]
        payload.merge(claims) { $1 }
        let (rsa, ec) = state.withLock { ($0.rsaKeys[keyID], $0.ecKeys[keyID]) }
        let header: JSONValue = ["alg": .string(ec != nil ? "ES256" : "RS256"), "kid": .string(keyID), "typ": "JWT"]
        let input =
            Base64URL.encode(header.serialized()) + "." + Base64URL.encode(JSONValue.object(payload).serialized())
        let signature: [UInt8]
        if let ec {
            signature = try ec.signatureES256(for: Array(input.utf8))
        } else if let rsa {
            signature = try rsa.signatureSHA256(for: Array(input.utf8))
        } else {
            throw HarnessError("no key \(keyID)")
        }
        return input + "." + Base64URL.encode(signature)
    }

    /// Registers a Facebook app and its secret.
    func addFacebookApp(_ appID: String, secret: String) { state.withLock { $0.facebookApps[appID] = secret } }

    /// A Facebook access token issued to `appID` for `user` (`{"id":…,"name":…,"email":…}`).
    func facebookToken(appID: String, user: JSONValue) -> String {
        let token = "EAA" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        state.withLock { $0.facebookTokens[token] = FacebookToken(appID: appID, user: user) }
        return token
    }

    /// A GitHub access token for `user`, whose `/user/emails` answers `emails`.
    func githubToken(user: JSONValue, emails: JSONValue) -> String {
        let token = "gho_" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        state.withLock { $0.githubTokens[token] = GitHubToken(user: user, emails: emails) }
        return token
    }

    /// An authorization code, as the provider's login page would redirect with: redeemable once at `/token` by
    /// `clientID` with `clientSecret`, the same `redirectURI`, and the PKCE verifier of `codeChallenge`.
    func authorizationCode(
        clientID: String, clientSecret: String, redirectURI: String, codeChallenge: String, idToken: String
    ) -> String {
        issue(
            PendingCode(
                clientID: clientID, clientSecret: clientSecret, redirectURI: redirectURI, codeChallenge: codeChallenge,
                idToken: idToken))
    }

    /// A Facebook- or GitHub-shaped authorization code: redeemable once at `/oauth/access_token` (Graph) or
    /// `/login/oauth/access_token` (GitHub) for `accessToken`, with the same checks as ``authorizationCode``.
    func oauthCode(
        clientID: String, clientSecret: String, redirectURI: String, codeChallenge: String, accessToken: String
    ) -> String {
        issue(
            PendingCode(
                clientID: clientID, clientSecret: clientSecret, redirectURI: redirectURI, codeChallenge: codeChallenge,
                idToken: "", accessToken: accessToken))
    }

    /// A fresh code redeemable once for `pending`.
    private func issue(_ pending: PendingCode) -> String {
        let code = "code-" + UUID().uuidString
        state.withLock { $0.codes[code] = pending }
        return code
    }

    /// `POST /token`: an OAuth 2.0 authorization-code grant with PKCE (S256), answered with the ID token.
    private static func token(_ request: HTTPRequest, _ state: Locked<State>) -> HTTPResponse {
        var form: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        let pending = state.withLock { $0.codes.removeValue(forKey: form["code"] ?? "") }
        let challenge = Base64URL.encode(SHA256.hash(Array((form["code_verifier"] ?? "").utf8)))
        guard request.method == "POST", form["grant_type"] == "authorization_code", let pending,
            form["client_id"] == pending.clientID, form["client_secret"] == pending.clientSecret,
            form["redirect_uri"] == pending.redirectURI, challenge == pending.codeChallenge
        else { return json(["error": "invalid_grant"], status: 400) }
        if let accessToken = pending.accessToken {
            // Facebook's and GitHub's token endpoints: an access token and no ID token.
            return json(["access_token": .string(accessToken), "token_type": "bearer"])
        }
        return json([
            "access_token": .string("at-" + UUID().uuidString), "token_type": "Bearer",
            "id_token": .string(pending.idToken),
        ])
    }

    private static func json(_ value: JSONValue, status: Int = 200, cache: String? = nil) -> HTTPResponse {
        var response = HTTPResponse.json(status: status, bytes: value.serialized())
        if let cache { response.headers.add(name: "Cache-Control", value: cache) }
        return response
    }

    private static func answer(_ request: HTTPRequest, _ state: Locked<State>) -> HTTPResponse {
        let base = "http://\(request.headers["Host"] ?? "127.0.0.1")"
        switch request.path {
        case "/token", "/oauth/access_token", "/login/oauth/access_token":
            return token(request, state)
        case "/.well-known/openid-configuration":
            state.withLock { $0.discoveryFetches += 1 }
            return json([
                "issuer": .string(base), "jwks_uri": .string(base + "/jwks"),
                "authorization_endpoint": .string(base + "/authorize"), "token_endpoint": .string(base + "/token"),
                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            ])
        case "/jwks":
            let keys: [JSONValue] = state.withLock { state in
                state.jwksFetches += 1
                return state.published.compactMap { id in
                    if let rsa = state.rsaKeys[id], let key = try? rsa.publicKey {
                        return .object(key.jwk(keyID: id).mapValues { .string($0) })
                    }
                    if let ec = state.ecKeys[id], let key = try? ec.publicKey {
                        return .object(key.jwk(keyID: id).mapValues { .string($0) })
                    }
                    return nil
                }
            }
            // Long-lived, as Google's are: a rotated key is found only by refetching on its unknown kid.
            return json(["keys": .array(keys)], cache: "public, max-age=3600")
        case "/debug_token":
            let appToken = request.queryValue("access_token") ?? ""
            let input = request.queryValue("input_token") ?? ""
            return state.withLock { state in
                let parts = appToken.split(separator: "|", maxSplits: 1).map(String.init)
                guard parts.count == 2, state.facebookApps[parts[0]] == parts[1] else {
                    return json(["error": ["message": "Invalid OAuth access token.", "code": 190]], status: 400)
                }
                guard let token = state.facebookTokens[input] else {
                    return json(["data": ["is_valid": false, "app_id": .string(parts[0])]])
                }
                return json([
                    "data": [
                        "app_id": .string(token.appID), "is_valid": true, "user_id": token.user["id"] ?? .null,
                        "type": "USER",
                    ]
                ])
            }
        case "/me":
            let token = state.withLock { $0.facebookTokens[request.queryValue("access_token") ?? ""] }
            guard let token else { return json(["error": ["message": "Invalid OAuth access token."]], status: 400) }
            var user = token.user
            if case .object(var object) = user, let url = object.removeValue(forKey: "pictureURL") {
                object["picture"] = ["data": ["url": url]]
                user = .object(object)
            }
            return json(user)
        case "/user", "/user/emails":
            let bearer = (request.headers["Authorization"] ?? "").replacingOccurrences(of: "Bearer ", with: "")
            guard let token = state.withLock({ $0.githubTokens[bearer] }) else {
                return json(["message": "Bad credentials"], status: 401)
            }
            return json(request.path == "/user" ? token.user : token.emails)
        default:
            return json(["error": "not found"], status: 404)
        }
    }
}
