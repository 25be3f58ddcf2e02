/// Who is making a request, as every API and the rules engine see it (`request.auth` in rules).
///
/// Produced in one place on the server — the request authenticator, from `Authorization: Bearer <ID token>`,
/// `?auth=` or `?access_token=` — so documents, the tree and listeners all agree on the caller.
public struct AuthContext: Sendable, Equatable {
    /// The signed-in user's ID (`request.auth.uid`); `nil` for an administrator acting as no particular user.
    public var uid: String?
    /// The verified ID token's claims (`request.auth.token`): `email`, `email_verified`, `firebase`, custom claims…
    public var claims: [String: JSONValue]
    /// The caller holds the admin credential: rules do not apply, as with Firebase's Admin SDKs.
    public var isAdmin: Bool

    /// A caller with these properties.
    public init(uid: String?, claims: [String: JSONValue], isAdmin: Bool) {
        self.uid = uid
        self.claims = claims
        self.isAdmin = isAdmin
    }

    /// The administrator: full access, no user.
    public static let admin = AuthContext(uid: nil, claims: [:], isAdmin: true)

    /// The `firebase.sign_in_provider` claim (`password`, `anonymous`, `custom`), when present.
    public var signInProvider: String? { claims["firebase"]?["sign_in_provider"]?.stringValue }
}
