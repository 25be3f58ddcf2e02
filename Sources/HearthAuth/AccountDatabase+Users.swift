/// Reading and writing accounts, whatever the engine. Every function takes the rows of an open transaction or read;
/// the decisions (which field is a duplicate, whether a row was there) are made here, once for every engine.
enum UserRows {
    static func user(uid: String, in db: any AccountRows) throws -> UserRecord? {
        try withLinks(db.user(uid: uid), db)
    }

    /// `user` with its provider links read.
    static func withLinks(_ user: UserRecord?, _ db: any AccountRows) throws -> UserRecord? {
        guard var user else { return nil }
        user.providerLinks = try ProviderLinkRows.links(uid: user.uid, in: db)
        return user
    }

    /// Just what every request's token check needs — whether the account exists, is disabled, and since when its
    /// tokens are valid — read with one fixed statement instead of the whole record.
    static func tokenStatus(uid: String, in db: any AccountRows) throws -> (disabled: Bool, validSince: Int64)? {
        try db.tokenStatus(uid: uid)
    }

    static func user(email: String, in db: any AccountRows) throws -> UserRecord? {
        try withLinks(db.user(email: email), db)
    }

    static func user(phoneNumber: String, in db: any AccountRows) throws -> UserRecord? {
        try withLinks(db.user(phoneNumber: phoneNumber), db)
    }

    /// Up to `limit` users with IDs after `afterUID`, in ID order: the admin listing's pages.
    static func page(after afterUID: String?, limit: Int, in db: any AccountRows) throws -> [UserRecord] {
        try db.users(after: afterUID, limit: limit).compactMap { try withLinks($0, db) }
    }

    /// Up to `limit` users after skipping `offset`, in ID order: the admin query's pages.
    static func page(limit: Int, offset: Int, in db: any AccountRows) throws -> [UserRecord] {
        try db.users(limit: limit, offset: offset).compactMap { try withLinks($0, db) }
    }

    static func count(in db: any AccountRows) throws -> Int {
        try db.userCount()
    }

    /// Inserts `user`; a taken uid, email or phone number surfaces as `DUPLICATE_LOCAL_ID`, `EMAIL_EXISTS` or
    /// `PHONE_NUMBER_EXISTS` (checked first, so the answer names the right field).
    static func insert(_ user: UserRecord, in db: any AccountRows) throws {
        if try db.user(uid: user.uid) != nil { throw AuthError.duplicateLocalID }
        if let email = user.email, !user.emailIsShared, try db.user(email: email) != nil {
            throw AuthError.emailExists
        }
        if let phone = user.phoneNumber, try db.user(phoneNumber: phone) != nil {
            throw AuthError.phoneNumberExists
        }
        try db.insertUser(user)
    }

    /// Writes every field of `user` over the row with its uid, checking email and phone uniqueness first.
    static func update(_ user: UserRecord, in db: any AccountRows) throws {
        if let email = user.email, !user.emailIsShared, let other = try db.user(email: email), other.uid != user.uid {
            throw AuthError.emailExists
        }
        if let phone = user.phoneNumber, let other = try db.user(phoneNumber: phone), other.uid != user.uid {
            throw AuthError.phoneNumberExists
        }
        guard try db.updateUser(user) else { throw AuthError.userNotFound }
    }

    /// Deletes the user; refresh tokens and codes go with it. Returns whether it existed.
    @discardableResult
    static func delete(uid: String, in db: any AccountRows) throws -> Bool {
        try db.deleteUser(uid: uid)
    }

    static func deleteAll(in db: any AccountRows) throws {
        try db.deleteAllUsers()
    }
}

/// Provider links: which provider identities belong to which account.
enum ProviderLinkRows {
    static func links(uid: String, in db: any AccountRows) throws -> [ProviderLink] {
        try db.links(uid: uid)
    }

    /// Up to `limit` identities at `providerID`, in user-ID order.
    static func links(providerID: String, limit: Int, in db: any AccountRows) throws -> [ProviderLink] {
        try db.links(providerID: providerID, limit: limit)
    }

    /// The account `rawID` at `providerID` is linked to.
    static func owner(providerID: String, rawID: String, in db: any AccountRows) throws -> String? {
        try db.linkOwner(providerID: providerID, rawID: rawID)
    }

    /// Links `link` to `uid`, or refreshes the profile of the existing link.
    static func upsert(_ link: ProviderLink, uid: String, at milliseconds: Int64, in db: any AccountRows) throws {
        try db.upsertLink(link, uid: uid, at: milliseconds)
    }

    /// Unlinks `providerID` from `uid`.
    static func delete(providerID: String, uid: String, in db: any AccountRows) throws {
        try db.deleteLink(providerID: providerID, uid: uid)
    }
}

/// Refresh tokens, keyed by the SHA-256 of the token.
package enum RefreshTokenRows {
    /// One stored refresh token.
    package struct Row: Sendable {
        package var uid: String
        package var provider: String
        package var extraClaims: String?
        package var createdAt: Int64

        /// A row with every field given.
        package init(uid: String, provider: String, extraClaims: String?, createdAt: Int64) {
            self.uid = uid
            self.provider = provider
            self.extraClaims = extraClaims
            self.createdAt = createdAt
        }
    }

    static func insert(hash: [UInt8], row: Row, in db: any AccountRows) throws {
        try db.insertRefreshToken(hash: hash, row: row)
    }

    static func find(hash: [UInt8], in db: any AccountRows) throws -> Row? {
        try db.refreshToken(hash: hash)
    }

    static func touch(hash: [UInt8], at milliseconds: Int64, in db: any AccountRows) throws {
        try db.touchRefreshToken(hash: hash, at: milliseconds)
    }

    /// Revokes every refresh token of `uid`.
    static func deleteAll(uid: String, in db: any AccountRows) throws {
        try db.deleteRefreshTokens(uid: uid)
    }

    static func count(uid: String, in db: any AccountRows) throws -> Int {
        try db.refreshTokenCount(uid: uid)
    }
}

/// One-time codes, keyed by the SHA-256 of the code.
package enum OobCodeRows {
    /// One stored one-time code.
    package struct Row: Sendable {
        package var uid: String
        package var requestType: OobRequestType
        package var email: String
        package var newEmail: String?
        package var expiresAt: Int64

        /// A row with every field given.
        package init(uid: String, requestType: OobRequestType, email: String, newEmail: String?, expiresAt: Int64) {
            self.uid = uid
            self.requestType = requestType
            self.email = email
            self.newEmail = newEmail
            self.expiresAt = expiresAt
        }
    }

    static func insert(hash: [UInt8], row: Row, createdAt: Int64, in db: any AccountRows) throws {
        try db.insertOobCode(hash: hash, row: row, createdAt: createdAt)
    }

    static func find(hash: [UInt8], in db: any AccountRows) throws -> Row? {
        try db.oobCode(hash: hash)
    }

    static func delete(hash: [UInt8], in db: any AccountRows) throws {
        try db.deleteOobCode(hash: hash)
    }

    /// Forgets codes that expired more than a day ago; younger expired ones still answer `EXPIRED_OOB_CODE`.
    static func prune(before seconds: Int64, in db: any AccountRows) throws {
        try db.deleteOobCodes(expiredBefore: seconds - 86_400)
    }
}

extension UserRecord {
    /// The `email` column: the address when this account owns it.
    var ownedEmail: String? { emailIsShared ? nil : email }
    /// The `shared_email` column: the address when another account owns it.
    var sharedEmail: String? { emailIsShared ? email : nil }
}
