import HearthSQLite

/// What `accounts:update` may carry.
public struct UpdateRequest: Sendable {
    /// The caller's ID token (client requests).
    public var idToken: String?
    /// The account to update (admin requests).
    public var localID: String?
    /// A verification code to apply instead of a profile change.
    public var oobCode: String?
    /// A new address; it starts unverified, and older tokens are revoked.
    public var email: String?
    /// A new password; older tokens are revoked.
    public var password: String?
    /// A new display name.
    public var displayName: String?
    /// A new photo URL.
    public var photoURL: String?
    /// Attributes to clear: `DISPLAY_NAME`, `PHOTO_URL`, `EMAIL`, `PASSWORD`.
    public var deleteAttributes: [String] = []
    /// Providers to unlink: `password`, `phone`, or a linked provider such as `google.com`.
    public var deleteProviders: [String] = []
    /// Disables or enables the account (admin only).
    public var disableUser: Bool?
    /// Sets the verified flag (admin only).
    public var emailVerified: Bool?
    /// Custom claims, a JSON object text (admin only).
    public var customAttributes: String?
    /// Revokes tokens issued before this Unix second (admin only).
    public var validSince: Int64?
    /// A new phone number (admin only).
    public var phoneNumber: String?
    /// A provider identity to link (admin only, `linkProviderUserInfo`).
    public var linkProvider: ProviderLink?

    /// An empty request.
    public init() {}
}

/// The outcome of `accounts:update`.
public struct UpdateResult: Sendable {
    /// The account after the change.
    public var user: UserRecord
    /// New tokens when the change revoked the old ones for a signed-in caller.
    public var tokens: TokenBundle?
    /// The address a `VERIFY_AND_CHANGE_EMAIL` code switched to.
    public var newEmail: String?
}

extension AccountService {
    /// `accounts:update`: applies a verification code, or changes the profile, address or password of the caller
    /// (client, by ID token) or of any account (admin, by uid). A new password or address revokes every older token
    /// and, for a signed-in caller, answers with fresh ones.
    public func update(_ request: UpdateRequest, context: RequestContext) throws(AuthError) -> UpdateResult {
        if context.isAdmin {
            if request.oobCode == nil, request.idToken == nil, request.localID == nil { throw AuthError.missingLocalID }
        } else {
            guard request.idToken != nil || request.oobCode != nil else {
                throw AuthError("INVALID_REQ_TYPE", "Unsupported request parameters.")
            }
            guard request.customAttributes == nil, request.emailVerified == nil, request.phoneNumber == nil,
                request.validSince == nil, request.linkProvider == nil
            else { throw AuthError.insufficientPermission }
        }
        if let code = request.oobCode { return try applyCode(code) }
        for attribute in request.deleteAttributes
        where !["DISPLAY_NAME", "PHOTO_URL", "EMAIL", "PASSWORD"].contains(attribute) {
            throw AuthError.notImplemented("deleteAttribute: \(attribute)")
        }
        if let claims = request.customAttributes { try Validation.checkCustomClaims(claims) }
        var newEmail: String?
        if let email = request.email {
            guard Validation.isValidEmail(email) else { throw AuthError.invalidEmail }
            newEmail = Validation.canonicalEmail(email)
        }
        if let phone = request.phoneNumber, !Validation.isValidPhoneNumber(phone) {
            throw AuthError("INVALID_PHONE_NUMBER", "Invalid format.")
        }
        var passwordHash: String?
        if let password = request.password {
            try Validation.checkPassword(password, minimum: configuration.minimumPasswordLength)
            passwordHash = try hashPassword(password)
        }
        var signInProvider: String?
        let uid: String
        if let token = request.idToken {
            let (verified, user) = try account(forIDToken: token)
            guard request.disableUser == nil || context.isAdmin else { throw AuthError("OPERATION_NOT_ALLOWED") }
            uid = user.uid
            signInProvider = verified.signInProvider
        } else {
            uid = request.localID ?? ""
        }
        if passwordHash != nil { signInProvider = "password" }
        let now = clock.milliseconds
        let (user, revoked): (UserRecord, Bool) = try database.write { db in
            guard var user = try UserRows.user(uid: uid, in: db) else { throw AuthError.userNotFound }
            var revoke = false
            if let newEmail, newEmail != user.email {
                user.email = newEmail
                user.emailIsShared = false
                user.emailVerified = false
                revoke = true
            }
            if let passwordHash {
                user.passwordHash = passwordHash
                user.passwordUpdatedAt = now
                revoke = true
            }
            if let name = request.displayName { user.displayName = name }
            if let photo = request.photoURL { user.photoURL = photo }
            if let verified = request.emailVerified { user.emailVerified = verified }
            if let claims = request.customAttributes { user.customClaims = claims == "{}" ? nil : claims }
            if let phone = request.phoneNumber { user.phoneNumber = phone }
            for attribute in request.deleteAttributes {
                switch attribute {
                case "DISPLAY_NAME": user.displayName = nil
                case "PHOTO_URL": user.photoURL = nil
                case "PASSWORD": user.passwordHash = nil
                default:
                    user.email = nil
                    user.emailIsShared = false
                    user.emailIsShared = false
                    user.emailVerified = false
                }
            }
            if request.deleteProviders.contains("password") {
                user.email = nil
                user.emailIsShared = false
                user.emailVerified = false
                user.passwordHash = nil
            }
            if request.deleteProviders.contains("phone") { user.phoneNumber = nil }
            if let link = request.linkProvider {
                guard !link.providerID.isEmpty, !link.rawID.isEmpty,
                    !IdentityProviders.reservedIDs.contains(link.providerID)
                else { throw AuthError("INVALID_PROVIDER_ID") }
                let owner = try ProviderLinkRows.owner(providerID: link.providerID, rawID: link.rawID, in: db)
                if let owner, owner != user.uid { throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED") }
                if owner == nil, user.providerLinks.contains(where: { $0.providerID == link.providerID }) {
                    throw AuthError("PROVIDER_ALREADY_LINKED")
                }
                try ProviderLinkRows.upsert(link, uid: user.uid, at: now, in: db)
                user.providerLinks = try ProviderLinkRows.links(uid: user.uid, in: db)
            }
            for provider in request.deleteProviders where provider != "password" && provider != "phone" {
                try ProviderLinkRows.delete(providerID: provider, uid: user.uid, in: db)
                user.providerLinks.removeAll { $0.providerID == provider }
            }
            if let disable = request.disableUser {
                // Refresh tokens stay stored so that a refresh answers USER_DISABLED, as Firebase's does, rather
                // than INVALID_REFRESH_TOKEN; moving validSince on ends them (and every ID token) for good, so
                // re-enabling the account does not revive them (TOKEN_EXPIRED).
                if disable && !user.disabled { user.validSince = clock.seconds }
                user.disabled = disable
            }
            if let validSince = request.validSince {
                user.validSince = validSince
                try RefreshTokenRows.deleteAll(uid: user.uid, in: db)
                revoke = true
            } else if revoke {
                try self.revokeSessions(of: &user, in: db)
            }
            try UserRows.update(user, in: db)
            return (user, revoke)
        }
        var tokens: TokenBundle?
        if revoked, let provider = signInProvider { tokens = try issueTokens(for: user, provider: provider) }
        if revoked { log(.info, "sessions revoked", ["reason": passwordHash != nil ? "password" : "update"]) }
        return UpdateResult(user: user, tokens: tokens, newEmail: nil)
    }

    /// Applies a `VERIFY_EMAIL` or `VERIFY_AND_CHANGE_EMAIL` code (single use).
    func applyCode(_ code: String) throws(AuthError) -> UpdateResult {
        let hash = OobCodes.hash(code)
        let now = clock.seconds
        let (user, newEmail): (UserRecord, String?) = try database.write { db in
            let row = try OobCodes.take(hash: hash, at: now, in: db)
            guard var user = try UserRows.user(uid: row.uid, in: db), user.email == row.email else {
                throw AuthError.invalidOobCode
            }
            switch row.requestType {
            case .verifyEmail:
                user.emailVerified = true
                try UserRows.update(user, in: db)
                return (user, nil)
            case .verifyAndChangeEmail:
                guard let newEmail = row.newEmail else { throw AuthError.invalidOobCode }
                if let other = try UserRows.user(email: newEmail, in: db), other.uid != user.uid {
                    throw AuthError.emailExists
                }
                user.email = newEmail
                user.emailIsShared = false
                user.emailVerified = true
                try self.revokeSessions(of: &user, in: db)
                try UserRows.update(user, in: db)
                return (user, newEmail)
            case .passwordReset:
                throw AuthError.invalidOobCode
            }
        }
        devCodes.remove(hash: hash)
        return UpdateResult(user: user, tokens: nil, newEmail: newEmail)
    }

    /// `accounts:resetPassword`: with `newPassword`, sets it (revoking every session and marking the address
    /// verified, since the link proved it); without, only reports what the code is for.
    public func resetPassword(
        oobCode: String?, newPassword: String?, context: RequestContext
    ) throws(AuthError)
        -> (email: String, requestType: OobRequestType, newEmail: String?)
    {
        guard let oobCode, !oobCode.isEmpty else { throw AuthError.missingOobCode }
        try limitAddress(context)
        let hash = OobCodes.hash(oobCode)
        let now = clock.seconds
        guard let newPassword else {
            let row = try database.read { db in try OobCodes.peek(hash: hash, at: now, in: db) }
            return (row.email, row.requestType, row.newEmail)
        }
        let peeked = try database.read { db in try OobCodes.peek(hash: hash, at: now, in: db) }
        guard peeked.requestType == .passwordReset else { throw AuthError.invalidOobCode }
        try Validation.checkPassword(newPassword, minimum: configuration.minimumPasswordLength)
        let passwordHash = try hashPassword(newPassword)
        let milliseconds = clock.milliseconds
        let email: String = try database.write { db in
            let row = try OobCodes.take(hash: hash, at: now, in: db)
            guard row.requestType == .passwordReset, var user = try UserRows.user(uid: row.uid, in: db),
                user.email == row.email
            else { throw AuthError.invalidOobCode }
            user.passwordHash = passwordHash
            user.passwordUpdatedAt = milliseconds
            user.emailVerified = true
            try self.revokeSessions(of: &user, in: db)
            try UserRows.update(user, in: db)
            return row.email
        }
        devCodes.remove(hash: hash)
        log(.info, "password reset", [:])
        return (email, .passwordReset, nil)
    }
}
