import Foundation
import HearthCore
import HearthCrypto

/// Verifies custom tokens (`accounts:signInWithCustomToken`): JWTs minted by the operator's own backend.
///
/// Outside development mode a token must be RS256-signed by a key the operator registered in
/// `<data>/keys/custom-token/`: `NAME.pem` holding a public key (its `kid` is `NAME`), or a Google service-account
/// JSON file (its `private_key_id` is the `kid`, its `client_email` the required `iss`). In development mode,
/// unsigned tokens (`alg: none`, what the Admin SDKs mint for an emulator) and bare JSON payloads are accepted too.
struct CustomTokens: Sendable {
    /// The audience Firebase requires of custom tokens.
    static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Claim names a custom token's `claims` may not use (they are the ID token's own).
    static let reservedClaims: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time", "firebase",
        "at_hash", "c_hash",
    ]

    struct TrustedKey: Sendable {
        var id: String
        var key: RSAPublicKey
        /// Required `iss` (a service account's email), when known.
        var issuer: String?
    }

    /// What a valid custom token says.
    struct Claims: Sendable {
        var uid: String
        var extraClaims: [String: JSONValue]
    }

    let trustedKeys: [TrustedKey]
    let allowUnsigned: Bool
    let clock: WallClock

    /// Loads the operator's keys from `directory` (missing directory: no keys).
    static func loadKeys(from directory: String) throws(AuthError) -> [TrustedKey] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var keys: [TrustedKey] = []
        for name in names.sorted() {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let text = String(decoding: data, as: UTF8.self)
            do {
                if name.hasSuffix(".pem") {
                    keys.append(TrustedKey(id: String(name.dropLast(4)), key: try RSAPublicKey(pem: text), issuer: nil))
                } else if name.hasSuffix(".json"), let account = try? JSONParser.parse(text),
                    let pem = account["private_key"]?.stringValue, let id = account["private_key_id"]?.stringValue
                {
                    keys.append(
                        TrustedKey(
                            id: id, key: try RSAPublicKey(pem: pem), issuer: account["client_email"]?.stringValue))
                }
            } catch {
                throw .internal("cannot read the custom-token key \(path): \(error)")
            }
        }
        return keys
    }

    /// The uid and extra claims of `token`, or `INVALID_CUSTOM_TOKEN`/`MISSING_IDENTIFIER` explaining what is wrong.
    func verify(_ token: String) throws(AuthError) -> Claims {
        let payload: [String: JSONValue]
        if token.hasPrefix("{") {
            guard allowUnsigned else { throw AuthError.invalidCustomToken("Invalid assertion format") }
            guard case .object(let object)? = try? JSONParser.parse(token) else {
                throw AuthError.invalidCustomToken(
                    "Hearth only accepts strict JSON or JWTs as development custom tokens.")
            }
            payload = object
        } else {
            guard let jwt = JWT.decode(token) else { throw AuthError.invalidCustomToken("Invalid assertion format") }
            try checkSignature(jwt)
            guard jwt.payload["aud"]?.stringValue == Self.audience else {
                throw AuthError.invalidCustomToken(
                    "Invalid aud (audience). Firebase ID tokens and third-party tokens cannot be used with signInWithCustomToken."
                )
            }
            if jwt.algorithm != "none" {
                let now = clock.seconds
                guard let issuedAt = jwt.seconds("iat"), let expiry = jwt.seconds("exp"),
                    issuedAt <= now + IDTokens.allowedSkew,
                    expiry - issuedAt <= 3600
                else {
                    throw AuthError.invalidCustomToken(
                        "iat and exp must be present, and exp at most one hour after iat.")
                }
                guard expiry > now else { throw AuthError.invalidCustomToken("Token expired.") }
            }
            payload = jwt.payload
        }
        let uid: String
        switch payload["uid"] ?? payload["user_id"] {
        case .string(let text)?: uid = text
        case .integer(let number)?: uid = String(number)
        default: throw AuthError("MISSING_IDENTIFIER")
        }
        guard !uid.isEmpty, uid.utf8.count <= 128 else {
            throw AuthError.invalidCustomToken("uid must be 1 to 128 characters.")
        }
        var extra: [String: JSONValue] = [:]
        if let claims = payload["claims"] {
            guard case .object(let object) = claims else { throw AuthError("INVALID_CLAIMS") }
            if let reserved = object.keys.sorted().first(where: Self.reservedClaims.contains) {
                throw AuthError("FORBIDDEN_CLAIM", reserved)
            }
            extra = object
        }
        return Claims(uid: uid, extraClaims: extra)
    }

    private func checkSignature(_ jwt: JWT) throws(AuthError) {
        switch jwt.algorithm {
        case "none"?:
            guard allowUnsigned else {
                throw AuthError.invalidCustomToken("Unsigned custom tokens are accepted only in development mode.")
            }
        case "RS256"?:
            let candidates = jwt.keyID.map { id in trustedKeys.filter { $0.id == id } } ?? trustedKeys
            guard
                let key = candidates.first(where: {
                    $0.key.isValidSignatureSHA256(jwt.signature, for: jwt.signingInput)
                })
            else { throw AuthError.invalidCustomToken("The token is not signed by a registered key.") }
            if let issuer = key.issuer, jwt.payload["iss"]?.stringValue != issuer {
                throw AuthError.invalidCustomToken("The token's iss does not match its signing key.")
            }
        default:
            throw AuthError.invalidCustomToken("Unsupported algorithm; custom tokens must be RS256.")
        }
    }
}
