import HearthCore
public import HearthHTTPClient

/// The federated identity providers a server accepts, and the one place a provider credential becomes a
/// ``FederatedIdentity``: through the provider (JWKS, Graph API, GitHub API) in production, or — in development
/// mode, as the Auth emulator does — from claims the client states itself.
public final class IdentityProviders: Sendable {
    /// A credential as `accounts:signInWithIdp`'s `postBody` carries it.
    public struct Credential: Sendable {
        /// `providerId`.
        public var providerID: String
        /// `id_token`.
        public var idToken: String?
        /// `access_token`.
        public var accessToken: String?
        /// `nonce`: the raw nonce whose SHA-256 the ID token must carry.
        public var rawNonce: String?

        /// A credential for `providerID`.
        public init(providerID: String, idToken: String? = nil, accessToken: String? = nil, rawNonce: String? = nil) {
            self.providerID = providerID
            self.idToken = idToken
            self.accessToken = accessToken
            self.rawNonce = rawNonce
        }
    }

    let configurations: [String: IdentityProviderConfiguration]
    private let keys: [String: ProviderKeys]
    let fetcher: ProviderFetcher
    let devMode: Bool
    /// Browser sign-ins waiting for the provider's redirect.
    let sessions = AuthorizationSessions()

    /// Provider IDs that name Hearth's own sign-in methods, never a federated provider.
    static let reservedIDs: Set<String> = ["password", "phone", "anonymous", "custom", "emailLink", "firebase"]

    /// The providers in `configurations`, reached under `policy`; `transport` sends the requests (libcurl unless a
    /// test passes its own).
    public init(
        _ configurations: [IdentityProviderConfiguration], policy: ProviderURLPolicy, devMode: Bool,
        transport: @escaping @Sendable (OutboundRequest) throws(OutboundHTTPError) -> OutboundResponse = {
            request throws(OutboundHTTPError) in try OutboundHTTP.send(request)
        }
    ) {
        let fetcher = ProviderFetcher(policy: policy, transport: transport)
        var byID: [String: IdentityProviderConfiguration] = [:]
        var keys: [String: ProviderKeys] = [:]
        for configuration in configurations {
            byID[configuration.providerID] = configuration
            keys[configuration.providerID] = ProviderKeys(configuration: configuration, fetcher: fetcher)
        }
        self.configurations = byID
        self.keys = keys
        self.fetcher = fetcher
        self.devMode = devMode
    }

    /// The configured provider IDs, sorted.
    public var configuredIDs: [String] { configurations.keys.sorted() }

    /// Verifies `credential` with its provider. Answers `INVALID_PROVIDER_ID` for an ID Hearth does not know,
    /// `OPERATION_NOT_ALLOWED` for one not configured here, and `INVALID_IDP_RESPONSE` (or
    /// `MISSING_OR_INVALID_NONCE`) for a credential that does not verify or a provider that cannot be reached.
    public func verify(_ credential: Credential, now: Int64) throws(AuthError) -> FederatedIdentity {
        let providerID = credential.providerID
        guard !providerID.isEmpty else { throw AuthError("MISSING_PROVIDER_ID") }
        let kind = IdentityProviderConfiguration.kind(of: providerID)
        let configuration = configurations[providerID]
        if devMode,
            configuration == nil || Self.isStatedClaims(credential.idToken)
                || Self.isStatedClaims(credential.accessToken)
        {
            guard !Self.reservedIDs.contains(providerID), providerID.utf8.count <= 128 else {
                throw AuthError("INVALID_PROVIDER_ID")
            }
            return try Self.statedIdentity(credential)
        }
        guard kind != nil else { throw AuthError("INVALID_PROVIDER_ID") }
        guard let configuration, let keys = keys[providerID] else { throw AuthError.operationNotAllowed }
        switch kind {
        case .facebook? where credential.idToken == nil:
            guard let token = credential.accessToken, !token.isEmpty else {
                throw AuthError.invalidIdpResponse("a Facebook credential needs an access_token")
            }
            return try FacebookGraph(configuration: configuration, fetcher: fetcher).verify(accessToken: token)
        case .github?:
            guard let token = credential.accessToken, !token.isEmpty else {
                throw AuthError.invalidIdpResponse("a GitHub credential needs an access_token")
            }
            return try GitHubAPI(configuration: configuration, fetcher: fetcher).verify(accessToken: token)
        default:
            // An access-token-only provider (Facebook, GitHub) states its claims in the access token instead.
            let statedAccessToken = credential.accessToken.flatMap { $0.first == "{" ? $0 : nil }
            guard let token = credential.idToken ?? statedAccessToken, !token.isEmpty else {
                throw AuthError.invalidIdpResponse("an id_token is required for \(providerID)")
            }
            var identity = try ProviderTokenVerifier(configuration: configuration, keys: keys).verify(
                token, rawNonce: credential.rawNonce, now: now)
            identity.accessToken = credential.accessToken
            return identity
        }
    }

    /// A configured provider and its keys; `INVALID_PROVIDER_ID` or `OPERATION_NOT_ALLOWED`.
    func configuredProvider(_ providerID: String) throws(AuthError) -> (IdentityProviderConfiguration, ProviderKeys) {
        guard IdentityProviderConfiguration.kind(of: providerID) != nil else { throw AuthError("INVALID_PROVIDER_ID") }
        guard let configuration = configurations[providerID], let keys = keys[providerID] else {
            throw AuthError.operationNotAllowed
        }
        return (configuration, keys)
    }

    /// Whether `token` is claims the client states itself: a JSON object, or a JWT with `alg: none`.
    static func isStatedClaims(_ token: String?) -> Bool {
        guard let token else { return false }
        if token.first == "{" { return true }
        return JWT.decode(token)?.algorithm?.lowercased() == "none"
    }

    /// Development mode: the identity the ID token's claims state, unverified (a JSON object, an unsigned JWT, or
    /// the payload of any JWT for a provider that is not configured), as the Auth emulator accepts them; for
    /// providers that only hand out access tokens, a JSON access token states the claims.
    static func statedIdentity(_ credential: Credential) throws(AuthError) -> FederatedIdentity {
        // An access-token-only provider (Facebook, GitHub) states its claims in the access token instead.
        let statedAccessToken = credential.accessToken.flatMap { $0.first == "{" ? $0 : nil }
        guard let token = credential.idToken ?? statedAccessToken, !token.isEmpty else {
            throw AuthError.invalidIdpResponse(
                "development mode signs in with an id_token holding the claims, e.g. {\"sub\":\"123\"}")
        }
        var claims: [String: JSONValue]
        if token.first == "{" {
            guard case .object(let object)? = try? JSONParser.parse(Array(token.utf8)) else {
                throw AuthError.invalidIdpResponse("the id_token is not a JSON object")
            }
            claims = object
        } else if let jwt = JWT.decode(token) {
            claims = jwt.payload
        } else {
            throw AuthError.invalidIdpResponse("the id_token is neither JSON claims nor a JWT")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw AuthError.invalidIdpResponse("the id_token's claims need a sub")
        }
        claims["sub"] = .string(subject)
        var identity = ProviderTokenVerifier.identity(
            providerID: credential.providerID, subject: subject, claims: claims, token: credential.idToken)
        identity.accessToken = credential.accessToken
        return identity
    }
}
