import HearthAuth
import HearthCore
import HearthHTTP

/// Identity Toolkit's admin configuration, the API behind the Firebase console's sign-in methods:
/// `GET`/`PATCH /admin/v2/projects/{p}/config`, `GET …/defaultSupportedIdpConfigs` (Google, Apple, Facebook, …)
/// and `GET …/oauthIdpConfigs` (`oidc.*`), also under `/identitytoolkit.googleapis.com`. Admin only.
///
/// What Hearth can change while it runs is the list of authorized domains; every other setting is fixed when the
/// server starts (a flag, or the config file's `providers`), so a `PATCH` of it is refused with the flag that sets
/// it. Email/password and anonymous sign-in are always on; phone and email-link sign-in do not exist in Hearth.
/// Client secrets are never answered in full.
extension AccountsAPI {
    /// `/admin/v2/projects/{p}/…`, with or without the host prefix.
    static func isAdminConfigPath(_ path: String) -> Bool {
        path.hasPrefix("/admin/v2/projects/") || path.hasPrefix(toolkitPrefix + "/admin/v2/projects/")
    }

    func adminConfig(_ request: HTTPRequest) -> (route: String, reply: HTTPReply) {
        var path = Substring(request.path)
        if path.hasPrefix(Self.toolkitPrefix) { path = path.dropFirst(Self.toolkitPrefix.count) }
        // ["", "admin", "v2", "projects", p, what]
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let what = parts.count == 6 ? String(parts[5]) : ""
        let route = "accounts.config"
        do throws(AuthError) {
            guard ["config", "defaultSupportedIdpConfigs", "oauthIdpConfigs"].contains(what) else {
                throw AuthError("NOT_FOUND", status: 404, statusName: "NOT_FOUND", reason: "notFound")
            }
            let project = String(parts[4])
            try checkProject(project)
            guard try caller(request) == .admin else {
                throw AuthError(
                    "INSUFFICIENT_PERMISSION", "the sign-in configuration needs the admin credential", status: 403,
                    statusName: "PERMISSION_DENIED", reason: "forbidden")
            }
            switch (request.method, what) {
            case ("GET", "config"):
                return (route, .response(AccountsJSON.response(signInConfig(project))))
            case ("PATCH", "config"):
                try updateConfig(request)
                return (route, .response(AccountsJSON.response(signInConfig(project))))
            case ("GET", "defaultSupportedIdpConfigs"):
                let configs = providerConfigs(project, oidc: false, collection: what)
                return (route, .response(AccountsJSON.response(["defaultSupportedIdpConfigs": .array(configs)])))
            case ("GET", "oauthIdpConfigs"):
                let configs = providerConfigs(project, oidc: true, collection: what)
                return (route, .response(AccountsJSON.response(["oauthIdpConfigs": .array(configs)])))
            case (_, "config"):
                return (route, .response(methodNotAllowed(request.method)))
            default:
                throw AuthError(
                    "INVALID_CONFIG",
                    "identity providers are set when the server starts (--providers or the config file's "
                        + "\"providers\") and cannot be changed while it runs")
            }
        } catch {
            return (route, .response(AccountsJSON.error(error)))
        }
    }

    /// The project's `Config`: its sign-in methods and authorized domains. Hearth adds `impliedAuthorizedDomains`,
    /// the hosts authorized without being listed (which a `PATCH` cannot remove).
    private func signInConfig(_ project: String) -> [String: JSONValue] {
        let accounts = service.configuration
        return [
            "name": .string("projects/\(project)/config"),
            "signIn": [
                "email": ["enabled": true, "passwordRequired": true], "anonymous": ["enabled": true],
                "phoneNumber": ["enabled": false],
                "allowDuplicateEmails": .bool(accounts.multipleAccountsPerEmail),
            ],
            "authorizedDomains": .array(service.allAuthorizedDomains.map { .string($0) }),
            "impliedAuthorizedDomains": .array(service.impliedAuthorizedDomains.map { .string($0) }),
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(accounts.emailEnumerationProtection)],
        ]
    }

    /// `PATCH …/config`: the fields its `updateMask` names (or, without one, those the body holds). Only
    /// `authorizedDomains` changes at run time; the implied domains are left out of what is stored.
    private func updateConfig(_ request: HTTPRequest) throws(AuthError) {
        let body = try AccountsJSON.body(of: request)
        let mask =
            request.queryValue("updateMask").map { $0.split(separator: ",").map(String.init) }
            ?? body.keys.filter { $0 != "name" }.sorted()
        for field in mask where field != "authorizedDomains" {
            throw AuthError("INVALID_CONFIG", Self.fixedAtStart(field))
        }
        guard mask.contains("authorizedDomains") else { return }
        guard case .array(let values) = body["authorizedDomains"] ?? .array([]) else {
            throw AuthError("INVALID_CONFIG", "authorizedDomains must be a list of host names")
        }
        var hosts: [String] = []
        for value in values {
            guard let host = value.stringValue else {
                throw AuthError("INVALID_CONFIG", "authorizedDomains must be a list of host names")
            }
            hosts.append(host)
        }
        let implied = Set(service.impliedAuthorizedDomains)
        try service.setAuthorizedDomains(hosts.filter { !implied.contains($0.lowercased()) })
    }

    /// Why a `Config` field cannot be changed at run time, and where it is set instead.
    private static func fixedAtStart(_ field: String) -> String {
        let name = field.prefix(100)
        if field.hasPrefix("signIn.email") || field.hasPrefix("signIn.anonymous") {
            return "\(name): email/password and anonymous sign-in are always on in Hearth"
        }
        if field.hasPrefix("signIn.phoneNumber") { return "\(name): Hearth has no phone sign-in" }
        if field == "signIn.allowDuplicateEmails" || field == "signIn" {
            return "\(name) is set at start (--multiple-accounts-per-email); it cannot change while the server runs"
        }
        if field.hasPrefix("emailPrivacyConfig") {
            return "\(name) is set at start (--email-enumeration-protection); it cannot change while the server runs"
        }
        return "\(name) is not a setting Hearth can change; only authorizedDomains changes while the server runs"
    }

    /// The configured providers as Identity Toolkit's `DefaultSupportedIdpConfig` (or, for `oidc.*`,
    /// `OAuthIdpConfig`) objects. A configured provider is enabled; its secret is shown only by its last characters.
    private func providerConfigs(_ project: String, oidc: Bool, collection: String) -> [JSONValue] {
        service.configuration.identityProviders.filter { $0.providerID.hasPrefix("oidc.") == oidc }.map { provider in
            var config: [String: JSONValue] = [
                "name": .string("projects/\(project)/\(collection)/\(provider.providerID)"), "enabled": true,
                "clientIds": .array(provider.clientIDs.map { .string($0) }),
            ]
            if let first = provider.clientIDs.first { config["clientId"] = .string(first) }
            if let secret = provider.clientSecret { config["clientSecret"] = .string(Self.masked(secret)) }
            if oidc, let issuer = provider.expectedIssuer { config["issuer"] = .string(issuer) }
            return .object(config)
        }
    }

    /// A secret as `••••` and, when it is long enough that they give little away, its last four characters.
    static func masked(_ secret: String) -> String {
        secret.count >= 16 ? "••••" + secret.suffix(4) : "••••"
    }
}
