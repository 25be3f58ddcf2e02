import HearthCore

extension AccountService {
    /// `accounts:signInWithPassword`.
    ///
    /// Limits: every attempt spends one of the caller address's attempts, and every wrong password one of the
    /// account's; either running out answers `TOO_MANY_ATTEMPTS_TRY_LATER` before any password is checked. An unknown
    /// address costs as much time as a wrong password, and with email-enumeration protection both answer
    /// `INVALID_LOGIN_CREDENTIALS`.
    public func signInWithPassword(
        email: String?, password: String?, context: RequestContext
    ) throws(AuthError) -> SignInResult {
        guard let given = email else { throw AuthError.missingEmail }
        guard Validation.isValidEmail(given) else { throw AuthError.invalidEmail }
        guard let password, !password.isEmpty else { throw AuthError.missingPassword }
        try limitAddress(context)
        let email = Validation.canonicalEmail(given)
        // No stored password is longer (see `Validation.checkPassword`); refusing early keeps a megabyte "password"
        // from costing a hash, while still counting as a failed attempt.
        guard password.utf8.count <= 4096 else {
            try accountLimiter.consume(email)
            throw configuration.emailEnumerationProtection
                ? AuthError.invalidLoginCredentials : AuthError.invalidPassword
        }
        guard try accountLimiter.allows(email) else { throw AuthError.tooManyAttempts }
        let protected = configuration.emailEnumerationProtection
        guard let user = try database.read({ db in try UserRows.user(email: email, in: db) }) else {
            _ = hasher.verify(password, against: decoyHash)
            try accountLimiter.consume(email)
            throw protected ? AuthError.invalidLoginCredentials : AuthError.emailNotFound
        }
        guard let hash = user.passwordHash, verifyPassword(password, against: hash) else {
            if user.passwordHash == nil { _ = hasher.verify(password, against: decoyHash) }
            try accountLimiter.consume(email)
            log(.info, "sign-in failed", ["reason": "password"])
            throw protected ? AuthError.invalidLoginCredentials : AuthError.invalidPassword
        }
        guard !user.disabled else { throw AuthError.userDisabled }
        accountLimiter.reset(email)
        // Imported hashes, and hashes made with weaker parameters than today's, are replaced now, while the password
        // is at hand.
        let rehash = passwordNeedsRehash(hash) ? try hashPassword(password) : nil
        let now = clock.milliseconds
        let signedIn: UserRecord = try database.write { db in
            guard var current = try UserRows.user(uid: user.uid, in: db) else { throw AuthError.emailNotFound }
            current.lastLoginAt = now
            if let rehash, current.passwordHash == hash { current.passwordHash = rehash }
            try UserRows.update(current, in: db)
            return current
        }
        return SignInResult(
            user: signedIn, tokens: try issueTokens(for: signedIn, provider: "password"), isNewUser: false)
    }

    /// `accounts:signInWithCustomToken`: signs in (creating if needed) the uid a verified custom token names.
    public func signInWithCustomToken(_ token: String?, context: RequestContext) throws(AuthError) -> SignInResult {
        guard let token, !token.isEmpty else { throw AuthError("MISSING_CUSTOM_TOKEN") }
        try limitAddress(context)
        let claims = try customTokens.verify(token)
        let now = clock.milliseconds
        let seconds = clock.seconds
        let (user, isNew): (UserRecord, Bool) = try database.write { db in
            if var user = try UserRows.user(uid: claims.uid, in: db) {
                guard !user.disabled else { throw AuthError.userDisabled }
                user.customAuth = true
                user.lastLoginAt = now
                try UserRows.update(user, in: db)
                return (user, false)
            }
            var user = UserRecord(uid: claims.uid, validSince: seconds, createdAt: now)
            user.customAuth = true
            user.lastLoginAt = now
            try UserRows.insert(user, in: db)
            return (user, true)
        }
        return SignInResult(
            user: user, tokens: try issueTokens(for: user, provider: "custom", extraClaims: claims.extraClaims),
            isNewUser: isNew)
    }

    /// `securetoken …/v1/token` with `grant_type=refresh_token`: a new ID token for a stored, unrevoked refresh
    /// token. The refresh token itself stays the same, as Firebase's does.
    public func refresh(
        grantType: String?, refreshToken: String?
    ) throws(AuthError) -> (user: UserRecord, tokens: TokenBundle) {
        guard let grantType, !grantType.isEmpty else { throw AuthError("MISSING_GRANT_TYPE") }
        guard grantType == "refresh_token" else { throw AuthError("INVALID_GRANT_TYPE") }
        guard let refreshToken, !refreshToken.isEmpty else { throw AuthError.missingRefreshToken }
        let hash = RefreshTokens.hash(refreshToken)
        let now = clock.milliseconds
        let (user, row): (UserRecord, RefreshTokenRows.Row) = try database.write { db in
            guard let row = try RefreshTokenRows.find(hash: hash, in: db) else { throw AuthError.invalidRefreshToken }
            guard var user = try UserRows.user(uid: row.uid, in: db) else { throw AuthError.userNotFound }
            guard !user.disabled else { throw AuthError.userDisabled }
            guard row.createdAt / 1000 >= user.validSince else { throw AuthError.tokenExpired }
            user.lastRefreshAt = now
            try UserRows.update(user, in: db)
            try RefreshTokenRows.touch(hash: hash, at: now, in: db)
            return (user, row)
        }
        var extra: [String: JSONValue] = [:]
        if let text = row.extraClaims, case .object(let object)? = try? JSONParser.parse(text) { extra = object }
        let idToken = try idTokens.issue(for: user, provider: row.provider, extraClaims: extra)
        return (
            user, TokenBundle(idToken: idToken, refreshToken: refreshToken, expiresIn: configuration.idTokenLifetime)
        )
    }
}
