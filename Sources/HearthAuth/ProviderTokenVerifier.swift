import Foundation
import HearthCore
import HearthCrypto

/// Checks a provider's OpenID Connect ID token: signed (RS256 or ES256) by a key of the provider's JWKS, issued by
/// the provider, for one of the operator's client IDs, within its lifetime (with ``allowedSkew``), and — when the
/// client sent a raw nonce — carrying its SHA-256 as `nonce`, as Apple and Firebase do.
struct ProviderTokenVerifier: Sendable {
    let configuration: IdentityProviderConfiguration
    let keys: ProviderKeys

    /// Seconds of clock difference tolerated on `exp` and `iat`.
    static let allowedSkew: Int64 = 60

    func verify(_ token: String, rawNonce: String?, now: Int64) throws(AuthError) -> FederatedIdentity {
        guard let jwt = JWT.decode(token) else { throw AuthError.invalidIdpResponse("the id_token is not a JWT") }
        let algorithm = jwt.algorithm ?? ""
        guard algorithm == "RS256" || algorithm == "ES256" else {
            throw AuthError.invalidIdpResponse(
                algorithm.lowercased() == "none"
                    ? "unsigned ID tokens are accepted only in development mode"
                    : "ID tokens signed with \(algorithm) are not accepted")
        }
        let candidates = try keys.keys(for: jwt.keyID, now: now)
        let signed = candidates.contains { key in
            switch (key, algorithm) {
            case (.rsa(let rsa), "RS256"): rsa.isValidSignatureSHA256(jwt.signature, for: jwt.signingInput)
            case (.ec(let ec), "ES256"): ec.isValidSignatureES256(jwt.signature, for: jwt.signingInput)
            default: false
            }
        }
        guard signed else { throw AuthError.invalidIdpResponse("the ID token's signature is not valid") }
        let claims = jwt.payload
        guard let issuer = claims["iss"]?.stringValue, isExpected(issuer: issuer, claims: claims) else {
            throw AuthError.invalidIdpResponse("the ID token was issued by another issuer")
        }
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let one)?: [one]
            case .array(let many)?: many.compactMap(\.stringValue)
            default: []
            }
        guard audiences.contains(where: configuration.clientIDs.contains) else {
            throw AuthError.invalidIdpResponse("the ID token was issued to another client ID")
        }
        guard let expiry = jwt.seconds("exp"), expiry + Self.allowedSkew > now else {
            throw AuthError.invalidIdpResponse("the ID token has expired")
        }
        if let issuedAt = jwt.seconds("iat"), issuedAt > now + Self.allowedSkew {
            throw AuthError.invalidIdpResponse("the ID token was issued in the future")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw AuthError.invalidIdpResponse("the ID token has no subject")
        }
        try Self.checkNonce(claims["nonce"]?.stringValue, rawNonce: rawNonce)
        return Self.identity(providerID: configuration.providerID, subject: subject, claims: claims, token: token)
    }

    /// The configured issuer; Google's tokens may also name it without the scheme, and Microsoft's multi-tenant
    /// issuer holds the token's own tenant ID.
    private func isExpected(issuer: String, claims: [String: JSONValue]) -> Bool {
        guard let expected = configuration.expectedIssuer else { return false }
        if expected.contains("{tenantid}") {
            guard let tenant = claims["tid"]?.stringValue, !tenant.isEmpty else { return false }
            return issuer == expected.replacingOccurrences(of: "{tenantid}", with: tenant)
        }
        if configuration.providerID == "google.com" && configuration.issuer == nil && issuer == "accounts.google.com" {
            return true
        }
        return issuer == expected
    }

    /// A raw nonce sent must hash (SHA-256, lower-case hex) to the token's `nonce`; a token with a nonce needs the
    /// raw one.
    static func checkNonce(_ tokenNonce: String?, rawNonce: String?) throws(AuthError) {
        switch (tokenNonce, rawNonce) {
        case (nil, nil):
            return
        case (nil, _?):
            throw AuthError.invalidNonce("the ID token carries no nonce")
        case (_?, nil):
            throw AuthError.invalidNonce("Nonce is missing in the request.")
        case (let hashed?, let raw?):
            guard ConstantTime.equals(hexSHA256(raw), hashed.lowercased()) else {
                throw AuthError.invalidNonce("the nonce does not match the ID token's")
            }
        }
    }

    /// The SHA-256 of `text` in lower-case hex: what an ID token's `nonce` holds for a raw nonce.
    static func hexSHA256(_ text: String) -> String {
        SHA256.hash(Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The identity an ID token's claims describe.
    static func identity(
        providerID: String, subject: String, claims: [String: JSONValue], token: String?
    ) -> FederatedIdentity {
        var identity = FederatedIdentity(providerID: providerID, rawID: subject)
        if let email = claims["email"]?.stringValue, Validation.isValidEmail(email) {
            identity.email = Validation.canonicalEmail(email)
            // Apple sends `"true"` as a string.
            identity.emailVerified = claims["email_verified"] == .bool(true) || claims["email_verified"] == "true"
        }
        identity.displayName = claims["name"]?.stringValue
        identity.photoURL = claims["picture"]?.stringValue
        identity.rawUserInfo = claims
        identity.idToken = token
        return identity
    }
}
