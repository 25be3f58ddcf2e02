public import HearthCore
import HearthCrypto

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
    let clock: AuthClock

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
    func verify(_ token: String) throws(AuthError) -> VerifiedIDToken {
        guard let jwt = JWT.decode(token), jwt.algorithm == "RS256", let keyID = jwt.keyID,
            let key = keys.verificationKey(id: keyID), key.isValidSignatureSHA256(jwt.signature, for: jwt.signingInput)
        else { throw AuthError.invalidIDToken }
        let now = clock.seconds
        guard jwt.payload["aud"]?.stringValue == projectID, jwt.payload["iss"]?.stringValue == issuer,
            let uid = jwt.payload["sub"]?.stringValue, !uid.isEmpty, uid.utf8.count <= 128,
            let issuedAt = jwt.seconds("iat"), issuedAt <= now + Self.allowedSkew, let expiry = jwt.seconds("exp")
        else { throw AuthError.invalidIDToken }
        guard expiry > now else { throw AuthError.tokenExpired }
        let provider = jwt.payload["firebase"]?["sign_in_provider"]?.stringValue ?? ""
        return VerifiedIDToken(uid: uid, claims: jwt.payload, issuedAt: issuedAt, signInProvider: provider)
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
