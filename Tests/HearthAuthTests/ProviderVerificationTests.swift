import Foundation
import HearthCore
import HearthCrypto
import HearthHTTPClient
import Testing

@testable import HearthAuth

/// The pieces of provider verification that need no network: cache lifetimes, the URL policy, the bound on
/// browser sign-ins in flight, and ES256 against a key from its JWK coordinates.
@Suite struct ProviderVerificationTests {
    @Test func cacheLifetimeFollowsCacheControl() {
        #expect(ProviderFetcher.cacheLifetime(["cache-control": "public, max-age=19000"]) == 19000)
        #expect(ProviderFetcher.cacheLifetime(["cache-control": "no-store"]) == 0)
        #expect(ProviderFetcher.cacheLifetime(["cache-control": "max-age=60, no-cache"]) == 0)
        #expect(ProviderFetcher.cacheLifetime(["cache-control": "max-age=99999999"]) == 86_400)
        #expect(ProviderFetcher.cacheLifetime([:], fallback: 42) == 42)
    }

    @Test func urlPolicyAllowsHTTPSAndLoopbackOnlyWhenAsked() {
        let strict = ProviderURLPolicy()
        let loopback = ProviderURLPolicy(allowsLoopbackHTTP: true)
        #expect(strict.allows("https://accounts.google.com/.well-known/openid-configuration"))
        #expect(!strict.allows("http://127.0.0.1:8080/jwks"))
        #expect(loopback.allows("http://127.0.0.1:8080/jwks"))
        #expect(loopback.allows("http://localhost/jwks"))
        #expect(!loopback.allows("http://127.0.0.1.evil.example/jwks"))
        #expect(!loopback.allows("http://example.com/jwks"))
        #expect(!loopback.allows("ftp://127.0.0.1/jwks"))
    }

    @Test func browserSignInsInFlightAreBoundedAndUsedOnce() throws {
        let sessions = AuthorizationSessions(capacity: 2)
        let session = AuthorizationSessions.Session(
            providerID: "oidc.x", redirectURI: "https://app.example.com/cb", state: "s", codeVerifier: "v",
            rawNonce: "n", createdAt: 1000)
        let first = try sessions.start(session, now: 1000)
        _ = try sessions.start(session, now: 1000)
        #expect(throws: AuthError("TOO_MANY_ATTEMPTS_TRY_LATER", "too many sign-ins are in progress")) {
            try sessions.start(session, now: 1000)
        }
        #expect(sessions.take(first, now: 1001)?.state == "s")
        #expect(sessions.take(first, now: 1001) == nil)
        _ = try sessions.start(session, now: 1000)
        // Once the waiting ones expire, they make room.
        var later = session
        later.createdAt = 1000 + AuthorizationSessions.lifetime
        let fresh = try sessions.start(later, now: later.createdAt)
        #expect(sessions.take(fresh, now: later.createdAt + AuthorizationSessions.lifetime) == nil)
    }

    @Test func es256VerifiesWithTheKeyFromItsCoordinates() throws {
        let key = try ECPrivateKey.generate()
        let jwk = try key.publicKey.jwk(keyID: "k")
        let rebuilt = try #require(
            ProviderKeys.key(from: .object(jwk.mapValues { .string($0) })).flatMap { key -> ECPublicKey? in
                if case .ec(let ec) = key { return ec }
                return nil
            })
        let message = Array("header.payload".utf8)
        let signature = try key.signatureES256(for: message)
        #expect(signature.count == 64)
        #expect(rebuilt.isValidSignatureES256(signature, for: message))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!rebuilt.isValidSignatureES256(flipped, for: message))
        #expect(!rebuilt.isValidSignatureES256(signature, for: Array("header.other".utf8)))
    }

    @Test func anUnreachableProviderIsInvalidIdpResponse() throws {
        var configuration = IdentityProviderConfiguration(providerID: "oidc.x", clientIDs: ["c"])
        configuration.issuer = "https://idp.example.com"
        let providers = IdentityProviders(
            [configuration], policy: ProviderURLPolicy(), devMode: false,
            transport: { request throws(OutboundHTTPError) in
                throw OutboundHTTPError(.transport, "Couldn't connect to server")
            })
        let signedLooking = try JWT.signRS256(payload: ["sub": "1"], keyID: "k", key: RSAPrivateKey.generate())
        do {
            _ = try providers.verify(.init(providerID: "oidc.x", idToken: signedLooking), now: 0)
            Issue.record("an unreachable provider must not verify")
        } catch {
            #expect(error.code == "INVALID_IDP_RESPONSE")
            #expect(error.detail?.contains("cannot reach the identity provider") == true)
        }
    }
}
