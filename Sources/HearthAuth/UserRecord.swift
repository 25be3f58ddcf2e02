/// One account as stored.
public struct UserRecord: Sendable, Equatable {
    /// The user ID (`localId`): 28 random alphanumerics, or chosen by an admin.
    public var uid: String
    /// The email address, lower-cased; unique across accounts.
    public var email: String?
    /// Whether the address was verified through a link (or set by an admin).
    public var emailVerified: Bool = false
    /// The argon2id hash of the password, with its parameters; never leaves the server.
    public var passwordHash: String?
    /// When the password was last set, in Unix milliseconds.
    public var passwordUpdatedAt: Int64?
    /// The display name.
    public var displayName: String?
    /// The profile photo URL.
    public var photoURL: String?
    /// The phone number in E.164 form; unique across accounts. Set by admins only (no SMS sign-in).
    public var phoneNumber: String?
    /// A disabled account cannot sign in or refresh, and its ID tokens are refused.
    public var disabled: Bool = false
    /// Custom claims as a JSON object text, added to every ID token.
    public var customClaims: String?
    /// Tokens issued before this Unix second are revoked.
    public var validSince: Int64
    /// Creation time, Unix milliseconds.
    public var createdAt: Int64
    /// Last sign-in, Unix milliseconds.
    public var lastLoginAt: Int64?
    /// Last token refresh, Unix milliseconds.
    public var lastRefreshAt: Int64?
    /// Has signed in with a custom token.
    public var customAuth: Bool = false
    /// With multiple accounts per email: `email` is also another account's, which owns it (the one email sign-in and
    /// email lookups find); this one reached it through a provider.
    public var emailIsShared = false
    /// Federated identities linked to the account (`google.com`, `facebook.com`, …), in provider order.
    public var providerLinks: [ProviderLink] = []

    /// A new record.
    public init(uid: String, validSince: Int64, createdAt: Int64) {
        self.uid = uid
        self.validSince = validSince
        self.createdAt = createdAt
    }

    /// Has a password to sign in with.
    public var hasPassword: Bool { passwordHash != nil }

    /// Anonymous: no email, password, phone, provider or custom-token identity.
    public var isAnonymous: Bool {
        email == nil && passwordHash == nil && phoneNumber == nil && !customAuth && providerLinks.isEmpty
    }
}
