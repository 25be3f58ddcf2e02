import Foundation
import HearthCore
import HearthCrypto
import HearthTesting
import Testing

/// A production-mode `hearth serve` whose federated providers all point at one ``FakeIdentityProvider``.
enum Providers {
    static let adminKey = "provider-tests-admin-key-0123456789"
    static let facebookApp = "fb-app-1"
    static let facebookSecret = "fb-secret-1"
    static let oidcSecret = "oidc-secret-1"

    /// The `providers` object: `oidc.fake` (with a client secret), `google.com` and `apple.com` with the fake as
    /// issuer (client ID `client-1`), Facebook's app `fb-app-1` and GitHub on the fake's APIs, and `oidc.down` at `downURL`.
    static func configuration(
        _ idp: FakeIdentityProvider, secretFile: String, oidcSecretFile: String, downURL: String
    ) -> JSONValue {
        let base = JSONValue.string(idp.baseURL)
        return [
            "oidc.fake": ["issuer": base, "clientIds": ["client-1"], "clientSecretFile": .string(oidcSecretFile)],
            "google.com": ["issuer": base, "clientIds": ["other-client", "client-1"]],
            "apple.com": ["issuer": base, "clientIds": "client-1"],
            "facebook.com": [
                "appId": .string(facebookApp), "appSecretFile": .string(secretFile), "apiUrl": base,
                "authorizationUrl": .string(idp.baseURL + "/dialog/oauth"),
            ],
            "github.com": [
                "apiUrl": base, "clientIds": ["gh-client"], "clientSecretFile": .string(oidcSecretFile),
                "authorizationUrl": .string(idp.baseURL + "/login/oauth/authorize"),
                "tokenUrl": .string(idp.baseURL + "/login/oauth/access_token"),
            ],
            "oidc.down": ["issuer": .string(downURL), "clientIds": ["client-1"]],
        ]
    }

    /// Runs `body` with a fake provider and a production server configured for it through a config file; `rules`
    /// and `databaseRules` are paths of rules files (documents default to open).
    static func withServer(
        rules: String? = nil, databaseRules: String? = nil, extraArguments: [String] = [],
        _ body: (HearthProcess, FakeIdentityProvider) async throws -> Void
    ) async throws {
        let idp = try FakeIdentityProvider()
        defer { idp.stop() }
        idp.addFacebookApp(facebookApp, secret: facebookSecret)
        let files = try TemporaryDirectory("hearth-providers")
        defer { files.remove() }
        let secret = files.url.appendingPathComponent("facebook-secret").path
        try facebookSecret.write(toFile: secret, atomically: true, encoding: .utf8)
        let oidcSecretFile = files.url.appendingPathComponent("oidc-secret").path
        try oidcSecret.write(toFile: oidcSecretFile, atomically: true, encoding: .utf8)
        // A port nothing listens on: a fake provider started and stopped at once.
        let down = try FakeIdentityProvider()
        down.stop()
        let config: JSONValue = [
            "providers": configuration(
                idp, secretFile: secret, oidcSecretFile: oidcSecretFile, downURL: down.baseURL),
            "allowLoopbackProviders": true,
        ]
        let configPath = files.url.appendingPathComponent("hearth.json").path
        try config.jsonString.write(toFile: configPath, atomically: true, encoding: .utf8)
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": adminKey]
        options.extraArguments = ["--config", configPath, "--rules", rules ?? OpenRules.path] + extraArguments
        if let databaseRules { options.extraArguments += ["--database-rules", databaseRules] }
        try await withHearth(options) { server in
            do {
                try await body(server, idp)
            } catch {
                Issue.record("server stderr:\n\(server.stderr.suffix(3000))")
                throw error
            }
        }
    }
}

extension HTTPClient {
    /// `accounts:signInWithIdp` with a `postBody` of `providerId` and the given credential fields; `link` is the
    /// ID token of an account to link to.
    func signInWithIdp(
        _ providerID: String, idToken: String? = nil, accessToken: String? = nil, nonce: String? = nil,
        link: String? = nil, returnCredential: Bool = true
    ) async throws -> HTTPResult {
        var fields = [("providerId", providerID)]
        if let idToken { fields.append(("id_token", idToken)) }
        if let accessToken { fields.append(("access_token", accessToken)) }
        if let nonce { fields.append(("nonce", nonce)) }
        let postBody = fields.map { "\($0.0)=\(HTTPClient.encodeQuery($0.1))" }.joined(separator: "&")
        var body: [String: JSONValue] = [
            "postBody": .string(postBody), "requestUri": "http://localhost", "returnSecureToken": true,
            "returnIdpCredential": .bool(returnCredential),
        ]
        if let link { body["idToken"] = .string(link) }
        return try await accounts("signInWithIdp", .object(body))
    }

    /// How many accounts the server holds (admin `accounts:query`).
    func accountCount(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let body = try expectOK(
            await admin("query", ["returnUserInfo": false], credential: Providers.adminKey),
            sourceLocation: sourceLocation)
        return Int(body["recordsCount"]?.stringValue ?? "") ?? -1
    }

    /// The account with `uid`, as the admin `accounts:lookup` shows it.
    func account(_ uid: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let body = try expectOK(
            await admin("lookup", ["localId": [.string(uid)]], credential: Providers.adminKey),
            sourceLocation: sourceLocation)
        return body["users"]?[0] ?? .null
    }
}

/// The lower-case hex SHA-256 of `text`, as an ID token's `nonce` holds it.
func sha256Hex(_ text: String) -> String {
    SHA256.hash(Array(text.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
