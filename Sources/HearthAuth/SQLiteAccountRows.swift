import HearthSQLite

/// The accounts' rows in `hearth.sqlite`, on the connection of an open transaction or read.
struct SQLiteAccountRows: AccountRows {
    /// The connection of the open transaction or read.
    let db: SQLiteConnection

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

    func user(uid: String) throws -> UserRecord? {
        try db.fetchOne("SELECT \(unsafeSQL: Self.columns) FROM auth_users WHERE uid = \(uid)").map(Self.decode)
    }

    func user(email: String) throws -> UserRecord? {
        try db.fetchOne("SELECT \(unsafeSQL: Self.columns) FROM auth_users WHERE email = \(email)").map(Self.decode)
    }

    func user(phoneNumber: String) throws -> UserRecord? {
        try db.fetchOne("SELECT \(unsafeSQL: Self.columns) FROM auth_users WHERE phone_number = \(phoneNumber)")
            .map(Self.decode)
    }

    func tokenStatus(uid: String) throws -> (disabled: Bool, validSince: Int64)? {
        try db.fetchOne("SELECT disabled, valid_since FROM auth_users WHERE uid = \(uid)").map { row in
            (row.bool(0) ?? false, row.int64(1) ?? 0)
        }
    }

    func users(after afterUID: String?, limit: Int) throws -> [UserRecord] {
        try db.fetchAll(
            "SELECT \(unsafeSQL: Self.columns) FROM auth_users WHERE uid > \(afterUID ?? "") ORDER BY uid LIMIT \(limit)"
        ).map(Self.decode)
    }

    func users(limit: Int, offset: Int) throws -> [UserRecord] {
        try db.fetchAll(
            "SELECT \(unsafeSQL: Self.columns) FROM auth_users ORDER BY uid LIMIT \(limit) OFFSET \(offset)"
        ).map(Self.decode)
    }

    func userCount() throws -> Int {
        try db.fetchOne("SELECT count(*) FROM auth_users")?.int(0) ?? 0
    }

    func insertUser(_ user: UserRecord) throws {
        try db.execute(
            """
            INSERT INTO auth_users(\(unsafeSQL: Self.columns)) VALUES (
                \(user.uid), \(user.ownedEmail), \(user.emailVerified), \(user.passwordHash), \(user.passwordUpdatedAt),
                \(user.displayName), \(user.photoURL), \(user.phoneNumber), \(user.disabled), \(user.customClaims),
                \(user.validSince), \(user.createdAt), \(user.lastLoginAt), \(user.lastRefreshAt), \(user.customAuth),
                \(user.sharedEmail))
            """)
    }

    func updateUser(_ user: UserRecord) throws -> Bool {
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
        return db.changes == 1
    }

    // Refresh tokens and codes go with the account (`ON DELETE CASCADE`).
    func deleteUser(uid: String) throws -> Bool {
        try db.execute("DELETE FROM auth_users WHERE uid = \(uid)")
        return db.changes > 0
    }

    func deleteAllUsers() throws {
        try db.execute("DELETE FROM auth_users")
    }

    func links(uid: String) throws -> [ProviderLink] {
        try db.fetchAll(
            """
            SELECT provider_id, raw_id, email, display_name, photo_url FROM auth_provider_links
            WHERE uid = \(uid) ORDER BY provider_id
            """
        ).map(Self.decodeLink)
    }

    func links(providerID: String, limit: Int) throws -> [ProviderLink] {
        try db.fetchAll(
            """
            SELECT provider_id, raw_id, email, display_name, photo_url FROM auth_provider_links
            WHERE provider_id = \(providerID) ORDER BY raw_id LIMIT \(limit)
            """
        ).map(Self.decodeLink)
    }

    private static func decodeLink(_ row: SQLiteRow) -> ProviderLink {
        var link = ProviderLink(providerID: row.string(0) ?? "", rawID: row.string(1) ?? "")
        link.email = row.string(2)
        link.displayName = row.string(3)
        link.photoURL = row.string(4)
        return link
    }

    func linkOwner(providerID: String, rawID: String) throws -> String? {
        try db.fetchOne(
            "SELECT uid FROM auth_provider_links WHERE provider_id = \(providerID) AND raw_id = \(rawID)"
        )?.string(0)
    }

    func upsertLink(_ link: ProviderLink, uid: String, at milliseconds: Int64) throws {
        try db.execute(
            """
            INSERT INTO auth_provider_links(provider_id, raw_id, uid, email, display_name, photo_url, linked_at)
            VALUES (\(link.providerID), \(link.rawID), \(uid), \(link.email), \(link.displayName), \(link.photoURL),
                    \(milliseconds))
            ON CONFLICT(provider_id, raw_id) DO UPDATE SET email = excluded.email,
                display_name = excluded.display_name, photo_url = excluded.photo_url
            """)
    }

    func deleteLink(providerID: String, uid: String) throws {
        try db.execute("DELETE FROM auth_provider_links WHERE uid = \(uid) AND provider_id = \(providerID)")
    }

    func insertRefreshToken(hash: [UInt8], row: RefreshTokenRows.Row) throws {
        try db.execute(
            """
            INSERT INTO auth_refresh_tokens(token_hash, uid, provider, extra_claims, created_at, last_used_at)
            VALUES (\(hash), \(row.uid), \(row.provider), \(row.extraClaims), \(row.createdAt), \(row.createdAt))
            """)
    }

    func refreshToken(hash: [UInt8]) throws -> RefreshTokenRows.Row? {
        try db.fetchOne(
            "SELECT uid, provider, extra_claims, created_at FROM auth_refresh_tokens WHERE token_hash = \(hash)"
        ).map {
            RefreshTokenRows.Row(
                uid: $0.string(0) ?? "", provider: $0.string(1) ?? "", extraClaims: $0.string(2),
                createdAt: $0.int64(3) ?? 0)
        }
    }

    func touchRefreshToken(hash: [UInt8], at milliseconds: Int64) throws {
        try db.execute("UPDATE auth_refresh_tokens SET last_used_at = \(milliseconds) WHERE token_hash = \(hash)")
    }

    func deleteRefreshTokens(uid: String) throws {
        try db.execute("DELETE FROM auth_refresh_tokens WHERE uid = \(uid)")
    }

    func refreshTokenCount(uid: String) throws -> Int {
        try db.fetchOne("SELECT count(*) FROM auth_refresh_tokens WHERE uid = \(uid)")?.int(0) ?? 0
    }

    func insertOobCode(hash: [UInt8], row: OobCodeRows.Row, createdAt: Int64) throws {
        try db.execute(
            """
            INSERT INTO auth_oob_codes(code_hash, uid, request_type, email, new_email, created_at, expires_at)
            VALUES (\(hash), \(row.uid), \(row.requestType.rawValue), \(row.email), \(row.newEmail), \(createdAt),
                    \(row.expiresAt))
            """)
    }

    func oobCode(hash: [UInt8]) throws -> OobCodeRows.Row? {
        try db.fetchOne(
            "SELECT uid, request_type, email, new_email, expires_at FROM auth_oob_codes WHERE code_hash = \(hash)"
        ).flatMap { row in
            OobRequestType(rawValue: row.string(1) ?? "").map {
                OobCodeRows.Row(
                    uid: row.string(0) ?? "", requestType: $0, email: row.string(2) ?? "", newEmail: row.string(3),
                    expiresAt: row.int64(4) ?? 0)
            }
        }
    }

    func deleteOobCode(hash: [UInt8]) throws {
        try db.execute("DELETE FROM auth_oob_codes WHERE code_hash = \(hash)")
    }

    func deleteOobCodes(expiredBefore seconds: Int64) throws {
        try db.execute("DELETE FROM auth_oob_codes WHERE expires_at < \(seconds)")
    }

    func savepoint(_ body: () throws -> Void) throws {
        try db.execute("SAVEPOINT account_rows")
        do {
            try body()
            try db.execute("RELEASE account_rows")
        } catch {
            try db.execute("ROLLBACK TO account_rows")
            try db.execute("RELEASE account_rows")
            throw error
        }
    }
}
