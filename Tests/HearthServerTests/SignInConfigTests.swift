import HearthAuth
import HearthCore
import HearthTesting
import Testing

/// Identity Toolkit's admin configuration (`/admin/v2/projects/{p}/config` and the providers' lists), what the
/// console's Accounts page shows as the sign-in methods: the settings fixed at start are reported and refused for
/// change with the flag that sets them; the authorized domains change while the server runs and take effect at once.
@Suite("Sign-in configuration")
struct SignInConfigTests {
    static let key = "sign-in-config-admin-key-0123456789"
    static let config = "/admin/v2/projects/demo/config"
    static let admin = ["Authorization": "Bearer \(key)"]

    static func server(dev: Bool = false) throws -> InProcessServer {
        try InProcessServer { configuration in
            configuration.devMode = dev
            configuration.accounts.adminKey = key
            configuration.accounts.authorizedDomains = ["app.example.com"]
            var facebook = IdentityProviderConfiguration(providerID: "facebook.com", clientIDs: ["1234567890"])
            facebook.clientSecret = "facebook-app-secret-abcd6789"
            var corp = IdentityProviderConfiguration(providerID: "oidc.corp", clientIDs: ["corp-client"])
            corp.issuer = "https://login.corp.example"
            configuration.accounts.identityProviders = [
                IdentityProviderConfiguration(providerID: "google.com", clientIDs: ["web.apps.googleusercontent.com"]),
                facebook, corp,
            ]
        }
    }

    /// Whether a password-reset link may continue to `url` (the unknown address is answered after the domain check).
    static func continueAllowed(_ server: InProcessServer, _ url: String) async throws -> Bool {
        let answer = try await server.request(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode", query: [("key", "web-key")],
            json: #"{"requestType":"PASSWORD_RESET","email":"nobody@example.com","continueUrl":"\#(url)"}"#)
        return try answer.json()["error"]?["message"]?.stringValue?.hasPrefix("UNAUTHORIZED_DOMAIN") != true
    }

    @Test("the configuration answers only the admin; it lists the sign-in methods and the configured domains")
    func readsTheConfiguration() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let anonymous = try await server.request("GET", Self.config, query: [("key", "web-key")])
        #expect(anonymous.status == 403, "\(anonymous)")
        let answer = try await server.request("GET", Self.config, headers: Self.admin)
        #expect(answer.status == 200, "\(answer)")
        let config = try answer.json()
        #expect(config["name"] == "projects/demo/config")
        #expect(config["signIn"]?["email"]?["enabled"] == true)
        #expect(config["signIn"]?["anonymous"]?["enabled"] == true)
        #expect(config["signIn"]?["phoneNumber"]?["enabled"] == false)
        #expect(config["signIn"]?["allowDuplicateEmails"] == false)
        #expect(config["authorizedDomains"] == ["app.example.com"], "\(config)")
        // The client SDKs' project configuration names the same domains (it named only localhost before).
        let project = try await server.request(
            "GET", "/identitytoolkit.googleapis.com/v1/projects", query: [("key", "web-key")])
        #expect(try project.json()["authorizedDomains"] == ["app.example.com"], "\(project)")
    }

    @Test("development mode's localhost and 127.0.0.1 are listed as implied, and a PATCH does not store them")
    func impliedDomains() async throws {
        let server = try Self.server(dev: true)
        defer { server.stop() }
        let config = try await server.request("GET", Self.config, headers: Self.admin).json()
        #expect(config["authorizedDomains"] == ["app.example.com", "localhost", "127.0.0.1"], "\(config)")
        #expect(config["impliedAuthorizedDomains"] == ["localhost", "127.0.0.1"], "\(config)")
        let patched = try await server.request(
            "PATCH", Self.config, query: [("updateMask", "authorizedDomains")], headers: Self.admin,
            json: #"{"authorizedDomains":["localhost","127.0.0.1"]}"#)
        #expect(try patched.json()["authorizedDomains"] == ["localhost", "127.0.0.1"], "\(patched)")
        #expect(try await Self.continueAllowed(server, "http://localhost:3000/done"))
        #expect(try await !Self.continueAllowed(server, "https://app.example.com/done"))
    }

    @Test("the authorized domains change at run time and take effect at once; a bad one is refused in words")
    func changesDomains() async throws {
        let server = try Self.server()
        defer { server.stop() }
        #expect(try await Self.continueAllowed(server, "https://app.example.com/done"))
        #expect(try await !Self.continueAllowed(server, "https://new.example.com/done"))
        let patched = try await server.request(
            "PATCH", Self.config, query: [("updateMask", "authorizedDomains")], headers: Self.admin,
            json: #"{"authorizedDomains":["new.example.com","Other.Example.org","new.example.com"]}"#)
        #expect(patched.status == 200, "\(patched)")
        #expect(try patched.json()["authorizedDomains"] == ["new.example.com", "other.example.org"], "\(patched)")
        #expect(try await Self.continueAllowed(server, "https://new.example.com/done"))
        #expect(try await !Self.continueAllowed(server, "https://app.example.com/done"))

        for bad in ["https://evil.example/", "app.example.com:8443", "*.example.com", ""] {
            let refused = try await server.request(
                "PATCH", Self.config, query: [("updateMask", "authorizedDomains")], headers: Self.admin,
                json: #"{"authorizedDomains":["ok.example.com","\#(bad)"]}"#)
            #expect(refused.status == 400, "\(bad): \(refused)")
            let message = try refused.json()["error"]?["message"]?.stringValue ?? ""
            #expect(message.hasPrefix("INVALID_CONFIG : ") && message.contains("not a host name"), "\(message)")
        }
        let unchanged = try await server.request("GET", Self.config, headers: Self.admin).json()
        #expect(unchanged["authorizedDomains"] == ["new.example.com", "other.example.org"])
        // Not the admin: refused, and nothing changes.
        let client = try await server.request(
            "PATCH", Self.config, query: [("key", "web-key")], json: #"{"authorizedDomains":[]}"#)
        #expect(client.status == 403, "\(client)")
    }

    @Test("a setting fixed at start is refused for change with the flag that sets it")
    func fixedSettings() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let cases: [(mask: String, body: String, says: String)] = [
            ("signIn.anonymous.enabled", #"{"signIn":{"anonymous":{"enabled":false}}}"#, "always on"),
            (
                "signIn.allowDuplicateEmails", #"{"signIn":{"allowDuplicateEmails":true}}"#,
                "--multiple-accounts-per-email"
            ),
            (
                "emailPrivacyConfig", #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#,
                "--email-enumeration-protection"
            ),
            ("signIn.phoneNumber.enabled", #"{"signIn":{"phoneNumber":{"enabled":true}}}"#, "no phone sign-in"),
        ]
        for (mask, body, says) in cases {
            let refused = try await server.request(
                "PATCH", Self.config, query: [("updateMask", mask)], headers: Self.admin, json: body)
            #expect(refused.status == 400, "\(mask): \(refused)")
            #expect(try refused.json()["error"]?["message"]?.stringValue?.contains(says) == true, "\(refused)")
        }
        // Without a mask, the body's fields are the mask.
        let unmasked = try await server.request(
            "PATCH", Self.config, headers: Self.admin, json: #"{"signIn":{"email":{"enabled":false}}}"#)
        #expect(unmasked.status == 400, "\(unmasked)")
    }

    @Test("the providers are listed with their client IDs; a secret never in full")
    func providers() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let answer = try await server.request(
            "GET", "/admin/v2/projects/demo/defaultSupportedIdpConfigs", headers: Self.admin)
        #expect(answer.status == 200, "\(answer)")
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("facebook-app-secret"))
        let configs = try #require(try answer.json()["defaultSupportedIdpConfigs"]?.arrayValue)
        #expect(configs.count == 2)
        #expect(configs[0]["name"] == "projects/demo/defaultSupportedIdpConfigs/google.com")
        #expect(configs[0]["clientId"] == "web.apps.googleusercontent.com")
        #expect(configs[0]["enabled"] == true)
        #expect(configs[1]["clientSecret"] == "••••6789", "\(configs[1])")
        let oidc = try await server.request(
            "GET", "/identitytoolkit.googleapis.com/admin/v2/projects/demo/oauthIdpConfigs", headers: Self.admin)
        let corp = try #require(try oidc.json()["oauthIdpConfigs"]?[0])
        #expect(corp["name"] == "projects/demo/oauthIdpConfigs/oidc.corp")
        #expect(corp["issuer"] == "https://login.corp.example")
        let change = try await server.request(
            "PATCH", "/admin/v2/projects/demo/defaultSupportedIdpConfigs", headers: Self.admin, json: "{}")
        #expect(change.status == 400, "\(change)")
        #expect(try change.json()["error"]?["message"]?.stringValue?.contains("--providers") == true)
    }
}
