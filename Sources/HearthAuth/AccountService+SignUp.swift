/// What `accounts:signUp` (and the admin create, `POST projects/{p}/accounts`) may carry.
public struct SignUpRequest: Sendable {
    /// The address; with `password`, an email/password account.
    public var email: String?
    /// The password.
    public var password: String?
    /// The display name.
    public var displayName: String?
    /// The photo URL (admin only).
    public var photoURL: String?
    /// An anonymous user's ID token: the email and password are linked to that account instead of a new one.
    public var idToken: String?
    /// The uid to create (admin only).
    public var localID: String?
    /// Marks the address verified (admin only).
    public var emailVerified: Bool?
    /// The phone number (admin only).
    public var phoneNumber: String?
    /// Creates the account disabled (admin only).
    public var disabled: Bool?

    /// An empty request: with nothing set, a client request creates an anonymous user.
    public init() {}
}

/// The outcome of a sign-up or sign-in.
public struct SignInResult: Sendable {
    /// The account, as stored after the call.
    public var user: UserRecord
    /// Its new tokens; `nil` for admin creates, which sign nobody in.
    public var tokens: TokenBundle?
    /// Whether the call created the account.
    public var isNewUser: Bool
}

extension AccountService {
    /// `accounts:signUp`: an email/password account, an anonymous one (no fields), or — with `idToken` — email and
    /// password linked to an existing (anonymous) account. Admin callers create accounts without signing in.
    public func signUp(_ request: SignUpRequest, context: RequestContext) throws(AuthError) -> SignInResult {
        try limitAddress(context)
        var provider: String?
        if context.isAdmin {
            if request.idToken != nil && request.localID != nil { throw AuthError("UNEXPECTED_PARAMETER", "User ID") }
        } else {
            if request.localID != nil { throw AuthError("UNEXPECTED_PARAMETER", "User ID") }
            if request.idToken != nil || request.password != nil || request.email != nil {
                guard request.email != nil else { throw AuthError.missingEmail }
                guard let password = request.password, !password.isEmpty else { throw AuthError.missingPassword }
                provider = "password"
            } else {
                provider = "anonymous"
            }
        }
        var email: String?
        if let given = request.email {
            guard Validation.isValidEmail(given) else { throw AuthError.invalidEmail }
            email = Validation.canonicalEmail(given)
        }
        // Clients may not set a photo or phone number here; like Identity Toolkit, those fields are ignored for them.
        if context.isAdmin, let phone = request.phoneNumber, !Validation.isValidPhoneNumber(phone) {
            throw AuthError("INVALID_PHONE_NUMBER", "Invalid format.")
        }
        var passwordHash: String?
        if let password = request.password, !password.isEmpty {
            try Validation.checkPassword(password, minimum: configuration.minimumPasswordLength)
            passwordHash = try hashPassword(password)
        }
        let linkedUID = try request.idToken.map { token throws(AuthError) in try account(forIDToken: token).user.uid }
        let now = clock.milliseconds
        let seconds = clock.seconds
        let uid = linkedUID ?? request.localID ?? Self.newUID()
        guard !uid.isEmpty, uid.utf8.count <= 128 else { throw AuthError("INVALID_LOCAL_ID") }
        let admin = context.isAdmin
        let user: UserRecord = try database.write { db in
            var user =
                try linkedUID.flatMap { try UserRows.user(uid: $0, in: db) }
                ?? UserRecord(uid: uid, validSince: seconds, createdAt: now)
            let isNew = linkedUID == nil
            if let email {
                // A password makes the address this account's own (it must then be free).
                user.email = email
                user.emailIsShared = false
            }
            if let passwordHash {
                user.passwordHash = passwordHash
                user.passwordUpdatedAt = now
            }
            if let name = request.displayName { user.displayName = name }
            if admin {
                if let photo = request.photoURL { user.photoURL = photo }
                if let phone = request.phoneNumber { user.phoneNumber = phone }
                user.emailVerified = request.emailVerified ?? false
                user.disabled = request.disabled ?? false
            } else {
                user.emailVerified = false
                user.lastLoginAt = now
            }
            if isNew {
                try UserRows.insert(user, in: db)
            } else {
                try UserRows.update(user, in: db)
            }
            return user
        }
        let tokens = try provider.map { provider throws(AuthError) in try issueTokens(for: user, provider: provider) }
        log(.info, "account created", ["provider": provider ?? "admin", "linked": linkedUID == nil ? "false" : "true"])
        return SignInResult(user: user, tokens: tokens, isNewUser: linkedUID == nil)
    }
}
