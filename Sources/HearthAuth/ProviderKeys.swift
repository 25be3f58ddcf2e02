import HearthCore
import HearthCrypto
import Synchronization

/// One OpenID provider's signing keys: the JWKS (found through the discovery document unless configured), cached
/// for as long as its `Cache-Control` allows, refetched once when a token names a key it does not hold — at most
/// once per ``refetchInterval``, so tokens with made-up `kid`s cannot make the server hammer the provider.
final class ProviderKeys: Sendable {
    /// A verification key from the JWKS.
    enum Key: Sendable {
        case rsa(RSAPublicKey)
        case ec(ECPublicKey)
    }

    private struct Snapshot: Sendable {
        var keys: [(id: String?, key: Key)]
        var expiresAt: Int64
    }

    private struct State: Sendable {
        var snapshot: Snapshot?
        var discovery: Discovery?
        var discoveryExpiresAt: Int64 = 0
        var lastRefetch: Int64?
    }

    /// Keys kept from one JWKS; a larger set is cut here.
    static let maximumKeys = 50
    /// Seconds between refetches triggered by an unknown `kid`.
    static let refetchInterval: Int64 = 30

    let configuration: IdentityProviderConfiguration
    let fetcher: ProviderFetcher
    private let state = Mutex(State())

    init(configuration: IdentityProviderConfiguration, fetcher: ProviderFetcher) {
        self.configuration = configuration
        self.fetcher = fetcher
    }

    /// The keys that may have signed a token with `keyID` (all of them when the token names none).
    func keys(for keyID: String?, now: Int64) throws(AuthError) -> [Key] {
        let cached = state.withLock { state in state.snapshot.flatMap { $0.expiresAt > now ? $0 : nil } }
        if let cached {
            let found = Self.matching(cached, keyID)
            if !found.isEmpty { return found }
            let mayRefetch = state.withLock { state in
                if let last = state.lastRefetch, now - last < Self.refetchInterval { return false }
                state.lastRefetch = now
                return true
            }
            guard mayRefetch else { throw AuthError.invalidIdpResponse("the ID token's key is not the provider's") }
        }
        let fresh = try fetch(now: now)
        let found = Self.matching(fresh, keyID)
        guard !found.isEmpty else { throw AuthError.invalidIdpResponse("the ID token's key is not the provider's") }
        return found
    }

    private static func matching(_ snapshot: Snapshot, _ keyID: String?) -> [Key] {
        guard let keyID else { return snapshot.keys.map(\.key) }
        return snapshot.keys.filter { $0.id == keyID }.map(\.key)
    }

    private func fetch(now: Int64) throws(AuthError) -> Snapshot {
        let url = try jwksURL(now: now)
        let (value, headers, status) = try fetcher.json(url)
        guard status == 200, let entries = value["keys"]?.arrayValue else {
            throw AuthError.invalidIdpResponse("the provider's JWKS answered HTTP \(status) without keys")
        }
        var keys: [(id: String?, key: Key)] = []
        for entry in entries.prefix(Self.maximumKeys) {
            if let use = entry["use"]?.stringValue, use != "sig" { continue }
            guard let key = Self.key(from: entry) else { continue }
            keys.append((entry["kid"]?.stringValue, key))
        }
        let snapshot = Snapshot(keys: keys, expiresAt: now + ProviderFetcher.cacheLifetime(headers))
        state.withLock { $0.snapshot = snapshot }
        return snapshot
    }

    /// What the discovery document says: where the keys are, and the endpoints of the browser's code flow.
    struct Discovery: Sendable {
        var jwksURL: String?
        var authorizationEndpoint: String?
        var tokenEndpoint: String?
    }

    /// The JWKS URL: configured, or the discovery document's `jwks_uri`.
    private func jwksURL(now: Int64) throws(AuthError) -> String {
        if let url = configuration.jwksURL { return url }
        guard let url = try discovery(now: now).jwksURL else {
            throw AuthError.invalidIdpResponse("the provider's discovery document has no jwks_uri")
        }
        return url
    }

    /// The discovery document, cached for as long as its `Cache-Control` allows (an hour when it says nothing).
    func discovery(now: Int64) throws(AuthError) -> Discovery {
        if let known = state.withLock({ $0.discoveryExpiresAt > now ? $0.discovery : nil }) { return known }
        guard let url = configuration.expectedDiscoveryURL else {
            throw AuthError.invalidIdpResponse("the provider has no discovery document configured")
        }
        let (value, headers, status) = try fetcher.json(url)
        guard status == 200, case .object = value else {
            throw AuthError.invalidIdpResponse("the provider's discovery document answered HTTP \(status)")
        }
        let discovery = Discovery(
            jwksURL: value["jwks_uri"]?.stringValue,
            authorizationEndpoint: value["authorization_endpoint"]?.stringValue,
            tokenEndpoint: value["token_endpoint"]?.stringValue)
        let lifetime = ProviderFetcher.cacheLifetime(headers, fallback: 3600)
        state.withLock { state in
            state.discovery = discovery
            state.discoveryExpiresAt = now + lifetime
        }
        return discovery
    }

    /// An RSA (at least 2048 bits) or P-256 key from a JWK; `nil` for anything else.
    static func key(from jwk: JSONValue) -> Key? {
        switch jwk["kty"]?.stringValue {
        case "RSA":
            guard let n = jwk["n"]?.stringValue.flatMap({ Base64URL.decode($0) }),
                let e = jwk["e"]?.stringValue.flatMap({ Base64URL.decode($0) }),
                let key = try? RSAPublicKey(modulus: n, exponent: e), key.bits >= 2048
            else { return nil }
            return .rsa(key)
        case "EC":
            guard jwk["crv"]?.stringValue == "P-256",
                let x = jwk["x"]?.stringValue.flatMap({ Base64URL.decode($0) }),
                let y = jwk["y"]?.stringValue.flatMap({ Base64URL.decode($0) }),
                let key = try? ECPublicKey(x: x, y: y)
            else { return nil }
            return .ec(key)
        default:
            return nil
        }
    }
}
