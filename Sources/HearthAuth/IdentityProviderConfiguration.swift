/// One federated identity provider the server accepts credentials from (`google.com`, `apple.com`, `facebook.com`,
/// `github.com`, `microsoft.com` or `oidc.NAME`), as the config file's `providers` object describes it.
public struct IdentityProviderConfiguration: Sendable, Equatable {
    /// The provider ID, e.g. `google.com` or `oidc.corp`.
    public var providerID: String
    /// The OAuth client IDs of the operator's apps: an ID token's `aud` must be one of them. For Facebook, the app ID
    /// (the first one is used for `debug_token`).
    public var clientIDs: [String]
    /// The client secret (Facebook: the app secret), read from the configured secret file; never logged.
    public var clientSecret: String?
    /// The expected `iss` of ID tokens; each kind has a default, `oidc.*` must set it.
    public var issuer: String?
    /// Where the OpenID discovery document is; default `issuer/.well-known/openid-configuration`.
    public var discoveryURL: String?
    /// The JWKS, when it should not come from the discovery document.
    public var jwksURL: String?
    /// Facebook's Graph API (default `https://graph.facebook.com`) or GitHub's REST API (default
    /// `https://api.github.com`).
    public var apiURL: String?
    /// Facebook's and GitHub's browser sign-in: the authorization page (defaults: Facebook's login dialog, GitHub's
    /// `login/oauth/authorize`).
    public var authorizationURL: String?
    /// Facebook's and GitHub's browser sign-in: where the server exchanges the code for an access token (defaults:
    /// the Graph API's `oauth/access_token`, GitHub's `login/oauth/access_token`).
    public var tokenURL: String?

    /// A provider with `providerID` and the apps' client IDs.
    public init(providerID: String, clientIDs: [String]) {
        self.providerID = providerID
        self.clientIDs = clientIDs
    }

    /// How the provider's credentials are checked.
    public enum Kind: Sendable, Equatable {
        /// ID tokens against discovery and JWKS (Google, Apple, Microsoft, `oidc.*`; Facebook Limited Login).
        case openIDConnect
        /// Access tokens through the Graph API's `debug_token` and `/me`.
        case facebook
        /// Access tokens through GitHub's `/user` and `/user/emails`.
        case github
    }

    /// The kind the provider ID names; `nil` for an ID Hearth does not know.
    public static func kind(of providerID: String) -> Kind? {
        switch providerID {
        case "google.com", "apple.com", "microsoft.com": .openIDConnect
        case "facebook.com": .facebook
        case "github.com": .github
        default: isOIDCName(providerID) ? .openIDConnect : nil
        }
    }

    /// `oidc.` followed by letters, digits, `-` or `_`, as Identity Platform names them.
    static func isOIDCName(_ providerID: String) -> Bool {
        guard providerID.hasPrefix("oidc.") else { return false }
        let name = providerID.dropFirst(5)
        return !name.isEmpty && name.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// The issuer ID tokens must name: the configured one, else the provider's well-known one. Microsoft's
    /// multi-tenant issuer contains `{tenantid}`, matched against the token's `tid`.
    public var expectedIssuer: String? {
        if let issuer { return issuer }
        switch providerID {
        case "google.com": return "https://accounts.google.com"
        case "apple.com": return "https://appleid.apple.com"
        case "microsoft.com": return "https://login.microsoftonline.com/{tenantid}/v2.0"
        case "facebook.com": return "https://www.facebook.com"
        default: return nil
        }
    }

    /// The discovery document's URL.
    public var expectedDiscoveryURL: String? {
        if let discoveryURL { return discoveryURL }
        if providerID == "microsoft.com" && issuer == nil {
            return "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration"
        }
        if providerID == "facebook.com" && issuer == nil && jwksURL == nil {
            return "https://www.facebook.com/.well-known/openid-configuration"
        }
        guard var base = expectedIssuer else { return nil }
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }

    /// Facebook's Graph API or GitHub's REST API base URL, without a trailing slash.
    public var expectedAPIURL: String {
        var url = apiURL ?? (providerID == "github.com" ? "https://api.github.com" : "https://graph.facebook.com")
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// Every URL the configuration names, for the https check at start-up.
    public var configuredURLs: [String] {
        [issuer, discoveryURL, jwksURL, apiURL, authorizationURL, tokenURL].compactMap { $0 }
    }

    /// The OAuth 2.0 endpoints and scopes of Facebook's and GitHub's browser sign-in (they are not OpenID Connect
    /// providers: no discovery, no ID token; the code buys an access token, checked as a token the app sent would
    /// be); `nil` for other providers.
    public var oauthEndpoints: (authorization: String, token: String, scope: String)? {
        switch providerID {
        case "facebook.com":
            (
                authorizationURL ?? "https://www.facebook.com/dialog/oauth",
                tokenURL ?? expectedAPIURL + "/oauth/access_token", "email,public_profile"
            )
        case "github.com":
            (
                authorizationURL ?? "https://github.com/login/oauth/authorize",
                tokenURL ?? "https://github.com/login/oauth/access_token", "read:user user:email"
            )
        default: nil
        }
    }
}

/// Which URLs identity providers may be reached at: `https` only, or also `http` to a loopback address when the
/// operator allowed it (tests and a provider on the same machine).
public struct ProviderURLPolicy: Sendable, Equatable {
    /// Allow `http://127.0.0.1…`, `http://[::1]…` and `http://localhost…`.
    public var allowsLoopbackHTTP: Bool

    /// A policy; `allowsLoopbackHTTP` is off in production configurations unless explicitly set.
    public init(allowsLoopbackHTTP: Bool = false) {
        self.allowsLoopbackHTTP = allowsLoopbackHTTP
    }

    /// Whether `url` may be fetched.
    public func allows(_ url: String) -> Bool {
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") { return lowered.count > 8 }
        guard allowsLoopbackHTTP, lowered.hasPrefix("http://") else { return false }
        let rest = lowered.dropFirst(7)
        return ["127.0.0.1:", "127.0.0.1/", "[::1]:", "[::1]/", "localhost:", "localhost/"].contains {
            rest.hasPrefix($0)
        } || ["127.0.0.1", "[::1]", "localhost"].contains(String(rest))
    }

    /// Whether a request to `url` must allow plain `http` (it is a permitted loopback URL).
    func isPlainHTTP(_ url: String) -> Bool { url.lowercased().hasPrefix("http://") }
}
