public import Foundation
import HearthCore

/// A credential from an identity provider, for ``Auth/signIn(with:)`` and ``User/link(with:)`` — Firebase's
/// `AuthCredential`. Make one with ``OAuthProvider``, ``GoogleAuthProvider``, ``FacebookAuthProvider`` or
/// ``GitHubAuthProvider``.
///
/// Immutable, hence `@unchecked Sendable` (a class so that ``OAuthCredential`` can refine it, as Firebase's does).
public class AuthCredential: @unchecked Sendable {
    /// The provider ID, e.g. `google.com`.
    public let provider: String

    init(provider: String) {
        self.provider = provider
    }
}

/// A credential holding an OAuth/OpenID Connect ID token and/or access token — Firebase's `OAuthCredential`.
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    /// The provider's ID token.
    public let idToken: String?
    /// The provider's access token.
    public let accessToken: String?
    /// The raw nonce whose SHA-256 the ID token carries (Apple, and any provider asked for a nonce).
    let rawNonce: String?
    /// The name Apple hands the app at the first sign-in only (it is never in the ID token).
    let fullName: PersonNameComponents?
    /// A browser sign-in's result: the URL the provider's last redirect reached (with its code) and the sign-in's
    /// session, which the server exchanges for the provider's tokens (`OAuthProvider.getCredentialWith`).
    let redirect: (requestURI: String, sessionID: String)?

    init(
        provider: String, idToken: String?, accessToken: String?, rawNonce: String? = nil,
        fullName: PersonNameComponents? = nil, redirect: (requestURI: String, sessionID: String)? = nil
    ) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.rawNonce = rawNonce
        self.fullName = fullName
        self.redirect = redirect
        super.init(provider: provider)
    }

    /// `accounts:signInWithIdp`'s `postBody`: `providerId`, `id_token`, `access_token`, `nonce`, form-encoded.
    var postBody: String {
        var fields = [("providerId", provider)]
        if let idToken { fields.append(("id_token", idToken)) }
        if let accessToken { fields.append(("access_token", accessToken)) }
        if let rawNonce { fields.append(("nonce", rawNonce)) }
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7F}"))
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }
            .joined(separator: "&")
    }
}

/// Any OAuth or OpenID Connect provider by ID (`apple.com`, `microsoft.com`, `oidc.NAME`, …) — Firebase's
/// `OAuthProvider`.
public final class OAuthProvider: Sendable {
    /// The provider ID.
    public let providerID: String
    /// The accounts a browser sign-in goes through; `nil`: the default app's.
    let auth: Auth?

    /// A provider with `providerID`, signing in through the default app's ``Auth``.
    public init(providerID: String) {
        self.providerID = providerID
        auth = nil
    }

    /// A provider with `providerID`, signing in through `auth`.
    public init(providerID: String, auth: Auth) {
        self.providerID = providerID
        self.auth = auth
    }

    /// A credential from the provider's ID token (and the raw nonce it was requested with) and/or access token.
    public static func credential(
        providerID: String, idToken: String, rawNonce: String? = nil, accessToken: String? = nil
    ) -> OAuthCredential {
        OAuthCredential(provider: providerID, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    /// A credential from the provider's access token alone.
    public static func credential(providerID: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: providerID, idToken: nil, accessToken: accessToken)
    }

    /// A Sign in with Apple credential: Apple's ID token, the raw nonce whose SHA-256 it carries, and the name Apple
    /// gives only at the first sign-in (kept as the account's display name when it has none).
    public static func appleCredential(
        withIDToken idToken: String, rawNonce: String?, fullName: PersonNameComponents?
    ) -> OAuthCredential {
        OAuthCredential(
            provider: "apple.com", idToken: idToken, accessToken: nil, rawNonce: rawNonce, fullName: fullName)
    }
}

/// Google Sign-In credentials — Firebase's `GoogleAuthProvider`.
public enum GoogleAuthProvider {
    /// `google.com`.
    public static let id = "google.com"

    /// A credential from Google Sign-In's ID token and access token.
    public static func credential(withIDToken idToken: String, accessToken: String) -> AuthCredential {
        OAuthCredential(provider: id, idToken: idToken, accessToken: accessToken)
    }
}

/// Facebook Login credentials — Firebase's `FacebookAuthProvider`.
public enum FacebookAuthProvider {
    /// `facebook.com`.
    public static let id = "facebook.com"

    /// A credential from a Facebook user access token; the server checks it was issued to the configured app.
    public static func credential(withAccessToken accessToken: String) -> AuthCredential {
        OAuthCredential(provider: id, idToken: nil, accessToken: accessToken)
    }
}

/// GitHub credentials — Firebase's `GitHubAuthProvider`.
public enum GitHubAuthProvider {
    /// `github.com`.
    public static let id = "github.com"

    /// A credential from a GitHub OAuth access token.
    public static func credential(withToken token: String) -> AuthCredential {
        OAuthCredential(provider: id, idToken: nil, accessToken: token)
    }
}

/// One identity of a user at a provider — Firebase's `UserInfo`, as ``User/providerData`` lists them.
public protocol UserInfo: Sendable {
    /// The provider ID (`password`, `google.com`, …).
    var providerID: String { get }
    /// The user's ID at the provider.
    var uid: String { get }
    /// The name the provider knows.
    var displayName: String? { get }
    /// The photo the provider knows.
    var photoURL: URL? { get }
    /// The address the provider knows.
    var email: String? { get }
    /// The phone number the provider knows.
    var phoneNumber: String? { get }
}

/// A provider identity as `accounts:lookup`'s `providerUserInfo` describes it.
struct ProviderUserInfo: UserInfo, Codable, Equatable {
    var providerID: String
    var uid: String
    var displayName: String?
    var photoURL: URL?
    var email: String?
    var phoneNumber: String?
}

/// What the provider said at a sign-in — Firebase's `AdditionalUserInfo`.
public final class AdditionalUserInfo: Sendable {
    /// The provider ID.
    public let providerID: String
    /// Whether the sign-in created the account.
    public let isNewUser: Bool
    /// The provider's user record (ID token claims, Facebook's `/me`, GitHub's `/user`), when the server sent it.
    public let profile: [String: any Sendable]?
    /// The provider's user name (GitHub's `login`), when it has one.
    public let username: String?

    init(providerID: String, isNewUser: Bool, profile: [String: any Sendable]?, username: String?) {
        self.providerID = providerID
        self.isNewUser = isNewUser
        self.profile = profile
        self.username = username
    }
}

extension AdditionalUserInfo {
    /// The additional info of a `signInWithIdp` answer (`providerId`, `isNewUser`, `rawUserInfo`).
    convenience init(assertion json: JSONValue) {
        var profile: [String: any Sendable]?
        var username: String?
        if let text = json["rawUserInfo"]?.stringValue,
            case .object(let members)? = try? JSONParser.parse(Array(text.utf8))
        {
            profile = members.compactMapValues(Self.sendable)
            username = members["login"]?.stringValue
        }
        self.init(
            providerID: json["providerId"]?.stringValue ?? "", isNewUser: json["isNewUser"]?.boolValue ?? false,
            profile: profile, username: username)
    }

    /// JSON as Foundation values — `Bool`, `Int`, `Double`, `String`, arrays and dictionaries of them — with
    /// nulls left out, as Firebase's profiles hold them.
    private static func sendable(_ json: JSONValue) -> (any Sendable)? {
        switch json {
        case .null: nil
        case .bool(let flag): flag
        case .integer(let number): Int(truncatingIfNeeded: number)
        case .double(let number): number
        case .string(let text): text
        case .array(let items): items.compactMap(sendable)
        case .object(let members): members.compactMapValues(sendable)
        }
    }
}
