import HearthSQLite

/// Reading and writing `auth_users` rows. Every function takes the connection of an open transaction or read.
enum UserRows {
    static let columns = """
        uid, email, email_verified, password_hash, password_updated_at, display_name, photo_url, phone_number, disabled,
        custom_claims, valid_since, created_at, last_login_at, last_refresh_at, custom_auth, shared_email
        """

    static func decode(_ row: SQLiteRow) -> UserRecord {
        var user = UserRecord(uid: row.string(0) ?? "", validSince: row.int64(10) ?? 0, createdAt: row.int64(11) ?? 0)
        user.email = row.string(1)
        user.emailVerified = row.bool(2) ?? false
        user.passwordHash = row.string(3)
        user.passwordUpdatedAt = row.int64(4)
        user.displayName = row.string(5)
        user.photoURL = row.string(6)
        user.phoneNumber = row.string(7)
        user.disabled = row.bool(8) ?? false
        user.customClaims = row.string(9)
        user.lastLoginAt = row.int64(12)
        user.lastRefreshAt = row.int64(13)
        user.customAuth = row.bool(14) ?? false
        if user.email == nil, let shared = row.string(15) {
            user.email = shared
            user.emailIsShared = true
        }
        return user
    }

    static func user(uid: String, in db: SQLiteConnection) throws -> UserRecord? {
        try withLinks(db.fetchOne("SELECT \(unsafeSQL: columns) FROM auth_users WHERE uid = \(uid)").map(decode), db)
    }

    /// `user` with its provider links read.
    static func withLinks(_ user: UserRecord?, _ db: SQLiteConnection) throws -> UserRecord? {
        guard var user else { return nil }
        user.providerLinks = try ProviderLinkRows.links(uid: user.uid, in: db)
        return user
    }

    /// Just what every request's token check needs — whether the account exists, is disabled, and since when its
    /// tokens are valid — read with one fixed statement instead of the whole record.
    static func tokenStatus(uid: String, in db: SQLiteConnection) throws -> (disabled: Bool, validSince: Int64)? {
        try db.fetchOne("SELECT disabled, valid_since FROM auth_users WHERE uid = \(uid)").map { row in
            (row.bool(0) ?? false, row.int64(1) ?? 0)
        }
    }

    static func user(email: String, in db: SQLiteConnection) throws -> UserRecord? {
        try withLinks(
            db.fetchOne("SELECT \(unsafeSQL: columns) FROM auth_users WHERE email = \(email)").map(decode), db)
    }

    static func user(phoneNumber: String, in db: SQLiteConnection) throws -> UserRecord? {
        try withLinks(
            db.fetchOne("SELECT \(unsafeSQL: columns) FROM auth_users WHERE phone_number = \(phoneNumber)").map(decode),
            db)
    }

    /// Up to `limit` users with IDs after `afterUID`, in ID order: the admin listing's pages.
    static func page(after afterUID: String?, limit: Int, in db: SQLiteConnection) throws -> [UserRecord] {
        try db.fetchAll(
            "SELECT \(unsafeSQL: columns) FROM auth_users WHERE uid > \(afterUID ?? "") ORDER BY uid LIMIT \(limit)"
        ).compactMap { try withLinks(decode($0), db) }
    }

    static func count(in db: SQLiteConnection) throws -> Int {
        try db.fetchOne("SELECT count(*) FROM auth_users")?.int(0) ?? 0
    }

    /// Inserts `user`; a taken uid, email or phone number surfaces as `DUPLICATE_LOCAL_ID`, `EMAIL_EXISTS` or
    /// `PHONE_NUMBER_EXISTS` (checked first, so the answer names the right field).
    static func insert(_ user: UserRecord, in db: SQLiteConnection) throws {
        if try self.user(uid: user.uid, in: db) != nil { throw AuthError.duplicateLocalID }
        if let email = user.email, !user.emailIsShared, try self.user(email: email, in: db) != nil {
            throw AuthError.emailExists
        }
        if let phone = user.phoneNumber, try self.user(phoneNumber: phone, in: db) != nil {
            throw AuthError.phoneNumberExists
        }
        try db.execute(
            """
            INSERT INTO auth_users(\(unsafeSQL: columns)) VALUES (
                \(user.uid), \(user.ownedEmail), \(user.emailVerified), \(user.passwordHash), \(user.passwordUpdatedAt),
                \(user.displayName), \(user.photoURL), \(user.phoneNumber), \(user.disabled), \(user.customClaims),
                \(user.validSince), \(user.createdAt), \(user.lastLoginAt), \(user.lastRefreshAt), \(user.customAuth),
                \(user.sharedEmail))
            """)
    }

    /// Writes every field of `user` over the row with its uid, checking email and phone uniqueness first.
    static func update(_ user: UserRecord, in db: SQLiteConnection) throws {
        if let email = user.email, !user.emailIsShared, let other = try self.user(email: email, in: db),
            other.uid != user.uid
        {
            throw AuthError.emailExists
        }
        if let phone = user.phoneNumber, let other = try self.user(phoneNumber: phone, in: db), other.uid != user.uid {
            throw AuthError.phoneNumberExists
        }
        try db.execute(
            """
            UPDATE auth_users SET email = \(user.ownedEmail), shared_email = \(user.sharedEmail),
                email_verified = \(user.emailVerified),
                password_hash = \(user.passwordHash), password_updated_at = \(user.passwordUpdatedAt),
                display_name = \(user.displayName), photo_url = \(user.photoURL), phone_number = \(user.phoneNumber),
                disabled = \(user.disabled), custom_claims = \(user.customClaims), valid_since = \(user.validSince),
                created_at = \(user.createdAt), last_login_at = \(user.lastLoginAt),
                last_refresh_at = \(user.lastRefreshAt), custom_auth = \(user.customAuth)
            WHERE uid = \(user.uid)
            """)
        guard db.changes == 1 else { throw AuthError.userNotFound }
    }

    /// Deletes the user; refresh tokens and codes go with it (`ON DELETE CASCADE`). Returns whether it existed.
    @discardableResult
    static func delete(uid: String, in db: SQLiteConnection) throws -> Bool {
        try db.execute("DELETE FROM auth_users WHERE uid = \(uid)")
        return db.changes > 0
    }

    static func deleteAll(in db: SQLiteConnection) throws {
        try db.execute("DELETE FROM auth_users")
    }
}

/// `auth_provider_links` rows: which provider identities belong to which account.
enum ProviderLinkRows {
    static func links(uid: String, in db: SQLiteConnection) throws -> [ProviderLink] {
        try db.fetchAll(
            """
            SELECT provider_id, raw_id, email, display_name, photo_url FROM auth_provider_links
            WHERE uid = \(uid) ORDER BY provider_id
            """
        ).map(decodeLink)
    }

    /// Up to `limit` identities at `providerID`, in user-ID order.
    static func links(providerID: String, limit: Int, in db: SQLiteConnection) throws -> [ProviderLink] {
        try db.fetchAll(
            """
            SELECT provider_id, raw_id, email, display_name, photo_url FROM auth_provider_links
            WHERE provider_id = \(providerID) ORDER BY raw_id LIMIT \(limit)
            """
        ).map(decodeLink)
    }

    private static func decodeLink(_ row: SQLiteRow) -> ProviderLink {
        var link = ProviderLink(providerID: row.string(0) ?? "", rawID: row.string(1) ?? "")
        link.email = row.string(2)
        link.displayName = row.string(3)
        link.photoURL = row.string(4)
        return link
    }

    /// The account `rawID` at `providerID` is linked to.
    static func owner(providerID: String, rawID: String, in db: SQLiteConnection) throws -> String? {
        try db.fetchOne(
            "SELECT uid FROM auth_provider_links WHERE provider_id = \(providerID) AND raw_id = \(rawID)"
        )?.string(0)
    }

    /// Links `link` to `uid`, or refreshes the profile of the existing link.
    static func upsert(_ link: ProviderLink, uid: String, at milliseconds: Int64, in db: SQLiteConnection) throws {
        try db.execute(
            """
            INSERT INTO auth_provider_links(provider_id, raw_id, uid, email, display_name, photo_url, linked_at)
            VALUES (\(link.providerID), \(link.rawID), \(uid), \(link.email), \(link.displayName), \(link.photoURL),
                    \(milliseconds))
            ON CONFLICT(provider_id, raw_id) DO UPDATE SET email = excluded.email,
                display_name = excluded.display_name, photo_url = excluded.photo_url
            """)
    }

    /// Unlinks `providerID` from `uid`.
    static func delete(providerID: String, uid: String, in db: SQLiteConnection) throws {
        try db.execute("DELETE FROM auth_provider_links WHERE uid = \(uid) AND provider_id = \(providerID)")
    }
}

/// `auth_refresh_tokens` rows, keyed by the SHA-256 of the token.
enum RefreshTokenRows {
    struct Row: Sendable {
        var uid: String
        var provider: String
        var extraClaims: String?
        var createdAt: Int64
    }

    static func insert(hash: [UInt8], row: Row, in db: SQLiteConnection) throws {
        try db.execute(
            """
            INSERT INTO auth_refresh_tokens(token_hash, uid, provider, extra_claims, created_at, last_used_at)
            VALUES (\(hash), \(row.uid), \(row.provider), \(row.extraClaims), \(row.createdAt), \(row.createdAt))
            """)
    }

    static func find(hash: [UInt8], in db: SQLiteConnection) throws -> Row? {
        try db.fetchOne(
            "SELECT uid, provider, extra_claims, created_at FROM auth_refresh_tokens WHERE token_hash = \(hash)"
        ).map {
            Row(
                uid: $0.string(0) ?? "", provider: $0.string(1) ?? "", extraClaims: $0.string(2),
                createdAt: $0.int64(3) ?? 0)
        }
    }

    static func touch(hash: [UInt8], at milliseconds: Int64, in db: SQLiteConnection) throws {
        try db.execute("UPDATE auth_refresh_tokens SET last_used_at = \(milliseconds) WHERE token_hash = \(hash)")
    }

    /// Revokes every refresh token of `uid`.
    static func deleteAll(uid: String, in db: SQLiteConnection) throws {
        try db.execute("DELETE FROM auth_refresh_tokens WHERE uid = \(uid)")
    }

    static func count(uid: String, in db: SQLiteConnection) throws -> Int {
        try db.fetchOne("SELECT count(*) FROM auth_refresh_tokens WHERE uid = \(uid)")?.int(0) ?? 0
    }
}

/// `auth_oob_codes` rows, keyed by the SHA-256 of the code.
enum OobCodeRows {
    struct Row: Sendable {
        var uid: String
        var requestType: OobRequestType
        var email: String
        var newEmail: String?
        var expiresAt: Int64
    }

    static func insert(hash: [UInt8], row: Row, createdAt: Int64, in db: SQLiteConnection) throws {
        try db.execute(
            """
            INSERT INTO auth_oob_codes(code_hash, uid, request_type, email, new_email, created_at, expires_at)
            VALUES (\(hash), \(row.uid), \(row.requestType.rawValue), \(row.email), \(row.newEmail), \(createdAt),
                    \(row.expiresAt))
            """)
    }

    static func find(hash: [UInt8], in db: SQLiteConnection) throws -> Row? {
        try db.fetchOne(
            "SELECT uid, request_type, email, new_email, expires_at FROM auth_oob_codes WHERE code_hash = \(hash)"
        ).flatMap { row in
            OobRequestType(rawValue: row.string(1) ?? "").map {
                Row(
                    uid: row.string(0) ?? "", requestType: $0, email: row.string(2) ?? "", newEmail: row.string(3),
                    expiresAt: row.int64(4) ?? 0)
            }
        }
    }

    static func delete(hash: [UInt8], in db: SQLiteConnection) throws {
        try db.execute("DELETE FROM auth_oob_codes WHERE code_hash = \(hash)")
    }

    /// Forgets codes that expired more than a day ago; younger expired ones still answer `EXPIRED_OOB_CODE`.
    static func prune(before seconds: Int64, in db: SQLiteConnection) throws {
        try db.execute("DELETE FROM auth_oob_codes WHERE expires_at < \(seconds - 86_400)")
    }
}

extension UserRecord {
    /// The `email` column: the address when this account owns it.
    var ownedEmail: String? { emailIsShared ? nil : email }
    /// The `shared_email` column: the address when another account owns it.
    var sharedEmail: String? { emailIsShared ? email : nil }
}
