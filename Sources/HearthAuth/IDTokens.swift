public import HearthCore
import HearthCrypto
import Synchronization

/// An ID token whose signature, issuer, audience and lifetime checked out.
public struct VerifiedIDToken: Sendable, Equatable {
    /// The user ID (`sub`).
    public var uid: String
    /// Every claim of the token.
    public var claims: [String: JSONValue]
    /// `iat`, Unix seconds: compared with the account's `validSince` to honour revocation.
    public var issuedAt: Int64
    /// `firebase.sign_in_provider`.
    public var signInProvider: String
}

/// Mints and checks Firebase-format ID tokens: RS256 JWTs with a `kid`, issued by
/// `https://securetoken.google.com/<project>` for audience `<project>`.
struct IDTokens: Sendable {
    let keys: SigningKeys
    let projectID: String
    let lifetime: Int64
    let clock: WallClock
    /// Tokens already verified, so a client sending the same token with every request pays for the RSA signature
    /// check once (it was a quarter of a rules-checked write's cost).
    let verified = VerifiedTokenCache()

    /// Clock skew tolerated on `iat`, as Google's libraries allow.
    static let allowedSkew: Int64 = 300

    var issuer: String { "https://securetoken.google.com/\(projectID)" }

    /// A signed ID token for `user` signed in with `provider`; `extraClaims` (from a custom token) come after the
    /// account's custom claims and before the reserved ones, which always win.
    func issue(
        for user: UserRecord, provider: String, extraClaims: [String: JSONValue] = [:]
    ) throws(AuthError) -> String {
        let now = clock.seconds
        var claims: [String: JSONValue] = [:]
        if let name = user.displayName { claims["name"] = .string(name) }
        if let picture = user.photoURL { claims["picture"] = .string(picture) }
        if let text = user.customClaims, case .object(let custom)? = try? JSONParser.parse(text) {
            claims.merge(custom) { $1 }
        }
        claims.merge(extraClaims) { $1 }
        var identities: [String: JSONValue] = [:]
        if let email = user.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(user.emailVerified)
            identities["email"] = [.string(email)]
        }
        if let phone = user.phoneNumber {
            claims["phone_number"] = .string(phone)
            identities["phone"] = [.string(phone)]
        }
        for link in user.providerLinks { identities[link.providerID] = [.string(link.rawID)] }
        if provider == "anonymous" { claims["provider_id"] = "anonymous" }
        claims["iss"] = .string(issuer)
        claims["aud"] = .string(projectID)
        claims["auth_time"] = .integer(user.lastLoginAt.map { $0 / 1000 } ?? now)
        claims["user_id"] = .string(user.uid)
        claims["sub"] = .string(user.uid)
        claims["iat"] = .integer(now)
        claims["exp"] = .integer(now + lifetime)
        claims["firebase"] = ["identities": .object(identities), "sign_in_provider": .string(provider)]
        let key = try keys.signingKey()
        do {
            return try JWT.signRS256(payload: claims, keyID: key.id, key: key.privateKey)
        } catch {
            throw .internal("cannot sign an ID token: \(error)")
        }
    }

    /// Checks `token` without touching the database: `INVALID_ID_TOKEN` for anything malformed, unsigned
    /// (`alg: none`), signed by an unknown key, with a bad signature, or for another project; `TOKEN_EXPIRED` past
    /// `exp`.
    ///
    /// A token verified before is taken from ``verified`` and only its lifetime checked again: its signature,
    /// issuer and audience cannot have changed, and the keys that signed it verify until it has expired.
    func verify(_ token: String) throws(AuthError) -> VerifiedIDToken {
        let now = clock.seconds
        if let known = verified.lookup(token, now: now) {
            guard known.expiry > now else { throw AuthError.tokenExpired }
            return known.token
        }
        let (result, expiry) = try verifyFully(token, now: now)
        verified.insert(token, result, expiry: expiry, now: now)
        return result
    }

    private func verifyFully(_ token: String, now: Int64) throws(AuthError) -> (VerifiedIDToken, Int64) {
        guard let jwt = JWT.decode(token), jwt.algorithm == "RS256", let keyID = jwt.keyID,
            let key = keys.verificationKey(id: keyID), key.isValidSignatureSHA256(jwt.signature, for: jwt.signingInput)
        else { throw AuthError.invalidIDToken }
        guard jwt.payload["aud"]?.stringValue == projectID, jwt.payload["iss"]?.stringValue == issuer,
            let uid = jwt.payload["sub"]?.stringValue, !uid.isEmpty, uid.utf8.count <= 128,
            let issuedAt = jwt.seconds("iat"), issuedAt <= now + Self.allowedSkew, let expiry = jwt.seconds("exp")
        else { throw AuthError.invalidIDToken }
        guard expiry > now else { throw AuthError.tokenExpired }
        let provider = jwt.payload["firebase"]?["sign_in_provider"]?.stringValue ?? ""
        return (VerifiedIDToken(uid: uid, claims: jwt.payload, issuedAt: issuedAt, signInProvider: provider), expiry)
    }
}

/// ID tokens whose signature, issuer and audience checked out, until they expire: bounded (cleared when full),
/// and each entry is trusted for at most ``maximumAge`` seconds before the token is verified again in full.
final class VerifiedTokenCache: Sendable {
    private struct Entry: Sendable {
        var token: VerifiedIDToken
        var expiry: Int64
        var verifiedAt: Int64
    }

    /// Entries kept; ~1 KB of token text plus its claims each.
    static let capacity = 4096
    /// Seconds an entry is trusted.
    static let maximumAge: Int64 = 300

    private let entries = Mutex<[String: Entry]>([:])

    /// A verified token and its `exp`, when `text` was verified less than ``maximumAge`` seconds ago.
    func lookup(_ text: String, now: Int64) -> (token: VerifiedIDToken, expiry: Int64)? {
        entries.withLock { entries in
            guard let entry = entries[text], now - entry.verifiedAt < Self.maximumAge else { return nil }
            return (entry.token, entry.expiry)
        }
    }

    /// Remembers a token that verified.
    func insert(_ text: String, _ token: VerifiedIDToken, expiry: Int64, now: Int64) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[text] = Entry(token: token, expiry: expiry, verifiedAt: now)
        }
    }
}

/// Refresh tokens: 48 random bytes, base64url; the database keeps only their SHA-256.
enum RefreshTokens {
    static func generate() -> (token: String, hash: [UInt8]) {
        let token = Base64URL.encode(SecureRandom.bytes(48))
        return (token, hash(token))
    }

    static func hash(_ token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }
}
