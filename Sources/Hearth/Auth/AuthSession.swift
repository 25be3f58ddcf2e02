import Foundation
import HearthCore

/// What the SDK remembers about a signed-in user: the profile and the tokens.
struct AuthSession: Codable, Sendable, Equatable {
    var uid: String
    var email: String?
    var displayName: String?
    var emailVerified: Bool
    var isAnonymous: Bool
    var refreshToken: String
    var idToken: String
    /// When ``idToken`` expires.
    var expiresAt: Date
    /// The identities `accounts:lookup` last listed; optional so that sessions saved before it existed still load.
    var providers: [ProviderUserInfo]?

    /// How long before expiry a token is replaced, so a request never carries one that expires in flight.
    static let refreshMargin: TimeInterval = 5 * 60

    /// Whether the ID token must be refreshed at `now`.
    func needsRefresh(at now: Date) -> Bool { now.addingTimeInterval(Self.refreshMargin) >= expiresAt }

    /// A session from a sign-up or sign-in answer (`localId`, `idToken`, `refreshToken`, `expiresIn`, `email`).
    init(signInResponse json: JSONValue, isAnonymous: Bool, now: Date) throws(AuthErrorCode) {
        guard let uid = json["localId"]?.stringValue, let idToken = json["idToken"]?.stringValue,
            let refreshToken = json["refreshToken"]?.stringValue
        else { throw AuthErrorCode(.internalError, "The sign-in answer lacks localId, idToken or refreshToken.") }
        self.uid = uid
        self.email = json["email"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        self.displayName = json["displayName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        // signInWithPassword answers without emailVerified (Firebase's SDK looks the account up); the ID token's
        // claim carries the same fact.
        self.emailVerified =
            json["emailVerified"]?.boolValue ?? JWTClaims(idToken)?.json["email_verified"]?.boolValue ?? false
        self.isAnonymous = isAnonymous
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.expiresAt = now.addingTimeInterval(Self.seconds(json["expiresIn"]) ?? 3600)
    }

    /// Applies a Secure Token answer (`id_token`, `refresh_token`, `expires_in`).
    mutating func apply(refreshResponse json: JSONValue, now: Date) throws(AuthErrorCode) {
        guard let idToken = json["id_token"]?.stringValue else {
            throw AuthErrorCode(.internalError, "The token answer lacks id_token.")
        }
        self.idToken = idToken
        if let verified = JWTClaims(idToken)?.json["email_verified"]?.boolValue { emailVerified = verified }
        if let refresh = json["refresh_token"]?.stringValue { refreshToken = refresh }
        expiresAt = now.addingTimeInterval(Self.seconds(json["expires_in"]) ?? 3600)
    }

    /// Applies an `accounts:lookup` user record.
    mutating func apply(lookup user: JSONValue) {
        email = user["email"]?.stringValue
        displayName = user["displayName"]?.stringValue
        emailVerified = user["emailVerified"]?.boolValue ?? emailVerified
        providers = (user["providerUserInfo"]?.arrayValue ?? []).compactMap { info in
            guard let providerID = info["providerId"]?.stringValue else { return nil }
            return ProviderUserInfo(
                providerID: providerID,
                uid: info["rawId"]?.stringValue ?? info["federatedId"]?.stringValue ?? "",
                displayName: info["displayName"]?.stringValue,
                photoURL: info["photoUrl"]?.stringValue.flatMap(URL.init),
                email: info["email"]?.stringValue, phoneNumber: info["phoneNumber"]?.stringValue)
        }
    }

    private static func seconds(_ json: JSONValue?) -> TimeInterval? {
        switch json {
        case .string(let text)?: return TimeInterval(text)
        case .integer(let number)?: return TimeInterval(number)
        case .double(let number)?: return number
        default: return nil
        }
    }
}
