import HearthSQLite

/// What `accounts:signInWithIdp` carries once its `postBody` is read.
public struct IdpSignInRequest: Sendable {
    /// The provider credential; `nil` for the end of a browser sign-in (``requestURI`` and ``sessionID``).
    public var credential: IdentityProviders.Credential?
    /// Where the provider sent the browser back, with its `code` and `state`.
    public var requestURI: String?
    /// The `sessionId` `accounts:createAuthUri` answered.
    public var sessionID: String?
    /// The caller's ID token: link the provider identity to that account instead of signing in.
    public var idToken: String?

    /// A request to sign in (or, with `idToken`, link) with `credential`.
    public init(credential: IdentityProviders.Credential, idToken: String? = nil) {
        self.credential = credential
        self.idToken = idToken
    }

    /// A request to end a browser sign-in started by `accounts:createAuthUri`.
    public init(requestURI: String, sessionID: String?, idToken: String? = nil) {
        self.requestURI = requestURI
        self.sessionID = sessionID
        self.idToken = idToken
    }
}

/// The outcome of `accounts:signInWithIdp`.
public struct IdpSignInResult: Sendable {
    /// Who the provider said the caller is.
    public var identity: FederatedIdentity
    /// The account signed in or linked to; `nil` when ``needConfirmation``.
    public var user: UserRecord?
    /// Its new tokens; `nil` when ``needConfirmation``.
    public var tokens: TokenBundle?
    /// Whether the call created the account.
    public var isNewUser: Bool
    /// The provider's address belongs to another account: nothing was written, and the caller must sign in to that
    /// account some other way and link this credential to it (the SDKs' "account exists with different
    /// credential").
    public var needConfirmation: Bool
    /// With ``needConfirmation``: how the existing account signs in (`password`, `google.com`, …).
    public var existingMethods: [String]
}

extension AccountService {
    /// The configured federated providers.
    public var identityProviders: IdentityProviders { providers }

    /// `accounts:signInWithIdp`: verifies the provider credential (nothing is written when it does not verify or the
    /// provider cannot be reached), then signs in the account the identity is linked to, creates one, links the
    /// identity to the caller's account (with `idToken`), or — when another account already has the provider's
    /// address — answers ``IdpSignInResult/needConfirmation`` (one account per email, Firebase's default).
    public func signInWithIdp(_ request: IdpSignInRequest, context: RequestContext) throws(AuthError) -> IdpSignInResult
    {
        try limitAddress(context)
        let target = try request.idToken.map { token throws(AuthError) in try account(forIDToken: token).user.uid }
        let identity =
            if let credential = request.credential {
                try providers.verify(credential, now: clock.seconds)
            } else {
                try providers.completeAuthorization(
                    requestURI: request.requestURI ?? "", sessionID: request.sessionID, now: clock.seconds)
            }
        var link = ProviderLink(providerID: identity.providerID, rawID: identity.rawID)
        link.email = identity.email
        link.displayName = identity.displayName
        link.photoURL = identity.photoURL
        let now = clock.milliseconds
        let seconds = clock.seconds
        let uid = Self.newUID()
        let outcome: (user: UserRecord?, isNew: Bool, methods: [String]) = try database.write { db in
            let owner = try ProviderLinkRows.owner(providerID: link.providerID, rawID: link.rawID, in: db)
            if let target {
                if let owner, owner != target { throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED") }
                guard var user = try UserRows.user(uid: target, in: db) else { throw AuthError.userNotFound }
                if owner == nil, user.providerLinks.contains(where: { $0.providerID == link.providerID }) {
                    throw AuthError("PROVIDER_ALREADY_LINKED")
                }
                if let email = identity.email {
                    var taken = false
                    if let other = try UserRows.user(email: email, in: db), other.uid != target {
                        guard configuration.multipleAccountsPerEmail else { throw AuthError.emailExists }
                        taken = true
                    }
                    if user.email == nil {
                        user.email = email
                        user.emailIsShared = taken
                        user.emailVerified = identity.emailVerified
                    }
                }
                return (try Self.signIn(&user, with: link, identity, at: now, in: db), false, [])
            }
            if let owner {
                guard var user = try UserRows.user(uid: owner, in: db) else { throw AuthError.userNotFound }
                guard !user.disabled else { throw AuthError.userDisabled }
                return (try Self.signIn(&user, with: link, identity, at: now, in: db), false, [])
            }
            var shared = false
            if let email = identity.email, let existing = try UserRows.user(email: email, in: db) {
                // One account per email (Firebase's default): the user confirms by signing in to the other account
                // and linking. With multiple accounts per email, a new account shares the address instead.
                guard configuration.multipleAccountsPerEmail else {
                    let methods = (existing.hasPassword ? ["password"] : []) + existing.providerLinks.map(\.providerID)
                    return (nil, false, methods)
                }
                shared = true
            }
            var user = UserRecord(uid: uid, validSince: seconds, createdAt: now)
            user.email = identity.email
            user.emailIsShared = shared
            user.emailVerified = identity.email != nil && identity.emailVerified
            user.displayName = identity.displayName
            user.photoURL = identity.photoURL
            user.lastLoginAt = now
            try UserRows.insert(user, in: db)
            try ProviderLinkRows.upsert(link, uid: user.uid, at: now, in: db)
            user.providerLinks = [link]
            return (user, true, [])
        }
        guard let user = outcome.user else {
            log(.info, "provider sign-in needs confirmation", ["provider": identity.providerID])
            return IdpSignInResult(
                identity: identity, user: nil, tokens: nil, isNewUser: false, needConfirmation: true,
                existingMethods: outcome.methods)
        }
        let tokens = try issueTokens(for: user, provider: identity.providerID)
        log(
            .info, target == nil ? "provider sign-in" : "provider linked",
            ["provider": identity.providerID, "new": outcome.isNew ? "true" : "false"])
        return IdpSignInResult(
            identity: identity, user: user, tokens: tokens, isNewUser: outcome.isNew, needConfirmation: false,
            existingMethods: [])
    }

    /// Seconds a browser sign-in started by ``createAuthURI(providerID:continueURI:context:)`` waits for the
    /// provider's redirect back.
    public static var browserSignInLifetime: Int64 { AuthorizationSessions.lifetime }

    /// `accounts:createAuthUri` with a `providerId`: the provider's authorization URL for a browser sign-in that
    /// returns to `continueURI`, and the `sessionId` that ends it.
    public func createAuthURI(
        providerID: String, continueURI: String, context: RequestContext
    ) throws(AuthError) -> (authURI: String, sessionID: String) {
        try limitAddress(context)
        return try providers.authorizationURI(
            providerID: providerID, redirectURI: continueURI, now: clock.seconds,
            devPickerURL: context.linkBaseURL + "/emulator/auth/handler")
    }

    /// Records a sign-in of `user` through `link`: the link stored (or its profile refreshed), the account's empty
    /// profile fields filled from the provider, its address marked verified when the provider vouches for it.
    private static func signIn(
        _ user: inout UserRecord, with link: ProviderLink, _ identity: FederatedIdentity, at now: Int64,
        in db: any AccountRows
    ) throws -> UserRecord {
        if identity.emailVerified, let email = identity.email, user.email == email { user.emailVerified = true }
        if user.displayName == nil { user.displayName = identity.displayName }
        if user.photoURL == nil { user.photoURL = identity.photoURL }
        user.lastLoginAt = now
        try UserRows.update(user, in: db)
        try ProviderLinkRows.upsert(link, uid: user.uid, at: now, in: db)
        user.providerLinks = try ProviderLinkRows.links(uid: user.uid, in: db)
        return user
    }
}
