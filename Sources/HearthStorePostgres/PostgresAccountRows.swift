import HearthAuth
internal import HearthPostgres

/// The accounts' tables (migration 30) on one connection, for the account logic every engine shares
/// (``AccountRows``). Times are Unix milliseconds in `int8`; token and code hashes are `bytea`.
struct PostgresAccountRows: AccountRows {
    let db: PostgresConnection

    private static let columns = """
        uid, email, email_verified, password_hash, password_updated_at, display_name, photo_url, phone_number, disabled,
        custom_claims, valid_since, created_at, last_login_at, last_refresh_at, custom_auth, shared_email
        """

    private static func decode(_ row: PostgresRow) throws -> UserRecord {
        var user = UserRecord(
            uid: try row.string(0) ?? "", validSince: try row.int(10) ?? 0, createdAt: try row.int(11) ?? 0)
        user.email = try row.string(1)
        user.emailVerified = try row.bool(2) ?? false
        user.passwordHash = try row.string(3)
        user.passwordUpdatedAt = try row.int(4)
        user.displayName = try row.string(5)
        user.photoURL = try row.string(6)
        user.phoneNumber = try row.string(7)
        user.disabled = try row.bool(8) ?? false
        user.customClaims = try row.string(9)
        user.lastLoginAt = try row.int(12)
        user.lastRefreshAt = try row.int(13)
        user.customAuth = try row.bool(14) ?? false
        if user.email == nil, let shared = try row.string(15) {
            user.email = shared
            user.emailIsShared = true
        }
        return user
    }

    private static func text(_ value: String?) -> PostgresParameter { value.map { .text($0) } ?? .null }
    private static func int(_ value: Int64?) -> PostgresParameter { value.map { .int($0) } ?? .null }

    private func one(_ sql: String, _ parameters: [PostgresParameter]) throws -> UserRecord? {
        let rows = try db.query(sql, parameters)
        return rows.count == 1 ? try Self.decode(rows[0]) : nil
    }

    func user(uid: String) throws -> UserRecord? {
        try one("SELECT \(Self.columns) FROM auth_users WHERE uid = $1", [.text(uid)])
    }

    func user(email: String) throws -> UserRecord? {
        try one("SELECT \(Self.columns) FROM auth_users WHERE email = $1", [.text(email)])
    }

    func user(phoneNumber: String) throws -> UserRecord? {
        try one("SELECT \(Self.columns) FROM auth_users WHERE phone_number = $1", [.text(phoneNumber)])
    }

    func tokenStatus(uid: String) throws -> (disabled: Bool, validSince: Int64)? {
        let rows = try db.query("SELECT disabled, valid_since FROM auth_users WHERE uid = $1", [.text(uid)])
        guard rows.count == 1 else { return nil }
        return (try rows[0].bool(0) ?? false, try rows[0].int(1) ?? 0)
    }

    func users(after afterUID: String?, limit: Int) throws -> [UserRecord] {
        try db.query(
            "SELECT \(Self.columns) FROM auth_users WHERE uid > $1 ORDER BY uid COLLATE \"C\" LIMIT $2",
            [.text(afterUID ?? ""), .int(Int64(limit))]
        ).rows.map(Self.decode)
    }

    func users(limit: Int, offset: Int) throws -> [UserRecord] {
        try db.query(
            "SELECT \(Self.columns) FROM auth_users ORDER BY uid COLLATE \"C\" LIMIT $1 OFFSET $2",
            [.int(Int64(limit)), .int(Int64(offset))]
        ).rows.map(Self.decode)
    }

    func userCount() throws -> Int {
        Int(try db.query("SELECT count(*) FROM auth_users")[0].int(0) ?? 0)
    }

    private static func fields(_ user: UserRecord) -> [PostgresParameter] {
        [
            .text(user.uid), text(user.emailIsShared ? nil : user.email), .bool(user.emailVerified),
            text(user.passwordHash), int(user.passwordUpdatedAt), text(user.displayName), text(user.photoURL),
            text(user.phoneNumber), .bool(user.disabled), text(user.customClaims), .int(user.validSince),
            .int(user.createdAt), int(user.lastLoginAt), int(user.lastRefreshAt), .bool(user.customAuth),
            text(user.emailIsShared ? user.email : nil),
        ]
    }

    func insertUser(_ user: UserRecord) throws {
        try db.query(
            "INSERT INTO auth_users(\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            Self.fields(user))
    }

    func updateUser(_ user: UserRecord) throws -> Bool {
        try db.query(
            """
            UPDATE auth_users SET email = $2, email_verified = $3, password_hash = $4, password_updated_at = $5,
                display_name = $6, photo_url = $7, phone_number = $8, disabled = $9, custom_claims = $10,
                valid_since = $11, created_at = $12, last_login_at = $13, last_refresh_at = $14, custom_auth = $15,
                shared_email = $16
            WHERE uid = $1
            """, Self.fields(user)
        ).affectedRows == 1
    }

    func deleteUser(uid: String) throws -> Bool {
        try db.query("DELETE FROM auth_users WHERE uid = $1", [.text(uid)]).affectedRows > 0
    }

    func deleteAllUsers() throws {
        try db.query("DELETE FROM auth_users")
    }

    private static func link(_ row: PostgresRow) throws -> ProviderLink {
        var link = ProviderLink(providerID: try row.string(0) ?? "", rawID: try row.string(1) ?? "")
        link.email = try row.string(2)
        link.displayName = try row.string(3)
        link.photoURL = try row.string(4)
        return link
    }

    func links(uid: String) throws -> [ProviderLink] {
        try db.query(
            """
            SELECT provider_id, raw_id, email, display_name, photo_url FROM auth_provider_links
            WHERE uid = $1 ORDER BY provider_id COLLATE "C"
            """, [.text(uid)]
        ).rows.map(Self.link)
    }

    func links(providerID: String, limit: Int) throws -> [ProviderLink] {
        try db.query(
            """
            SELECT provider_id, raw_id, email, display_name, photo_url FROM auth_provider_links
            WHERE provider_id = $1 ORDER BY raw_id COLLATE "C" LIMIT $2
            """, [.text(providerID), .int(Int64(limit))]
        ).rows.map(Self.link)
    }

    func linkOwner(providerID: String, rawID: String) throws -> String? {
        let rows = try db.query(
            "SELECT uid FROM auth_provider_links WHERE provider_id = $1 AND raw_id = $2",
            [.text(providerID), .text(rawID)])
        return rows.count == 1 ? try rows[0].string(0) : nil
    }

    func upsertLink(_ link: ProviderLink, uid: String, at milliseconds: Int64) throws {
        try db.query(
            """
            INSERT INTO auth_provider_links(provider_id, raw_id, uid, email, display_name, photo_url, linked_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT(provider_id, raw_id) DO UPDATE SET email = excluded.email,
                display_name = excluded.display_name, photo_url = excluded.photo_url
            """,
            [
                .text(link.providerID), .text(link.rawID), .text(uid), Self.text(link.email),
                Self.text(link.displayName), Self.text(link.photoURL), .int(milliseconds),
            ])
    }

    func deleteLink(providerID: String, uid: String) throws {
        try db.query(
            "DELETE FROM auth_provider_links WHERE uid = $1 AND provider_id = $2", [.text(uid), .text(providerID)])
    }

    func insertRefreshToken(hash: [UInt8], row: RefreshTokenRows.Row) throws {
        try db.query(
            """
            INSERT INTO auth_refresh_tokens(token_hash, uid, provider, extra_claims, created_at, last_used_at)
            VALUES ($1, $2, $3, $4, $5, $5)
            """, [.binary(hash), .text(row.uid), .text(row.provider), Self.text(row.extraClaims), .int(row.createdAt)])
    }

    func refreshToken(hash: [UInt8]) throws -> RefreshTokenRows.Row? {
        let rows = try db.query(
            "SELECT uid, provider, extra_claims, created_at FROM auth_refresh_tokens WHERE token_hash = $1",
            [.binary(hash)])
        guard rows.count == 1 else { return nil }
        let row = rows[0]
        return RefreshTokenRows.Row(
            uid: try row.string(0) ?? "", provider: try row.string(1) ?? "", extraClaims: try row.string(2),
            createdAt: try row.int(3) ?? 0)
    }

    func touchRefreshToken(hash: [UInt8], at milliseconds: Int64) throws {
        try db.query(
            "UPDATE auth_refresh_tokens SET last_used_at = $2 WHERE token_hash = $1",
            [.binary(hash), .int(milliseconds)])
    }

    func deleteRefreshTokens(uid: String) throws {
        try db.query("DELETE FROM auth_refresh_tokens WHERE uid = $1", [.text(uid)])
    }

    func refreshTokenCount(uid: String) throws -> Int {
        Int(try db.query("SELECT count(*) FROM auth_refresh_tokens WHERE uid = $1", [.text(uid)])[0].int(0) ?? 0)
    }

    func insertOobCode(hash: [UInt8], row: OobCodeRows.Row, createdAt: Int64) throws {
        try db.query(
            """
            INSERT INTO auth_oob_codes(code_hash, uid, request_type, email, new_email, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """,
            [
                .binary(hash), .text(row.uid), .text(row.requestType.rawValue), .text(row.email),
                Self.text(row.newEmail), .int(createdAt), .int(row.expiresAt),
            ])
    }

    func oobCode(hash: [UInt8]) throws -> OobCodeRows.Row? {
        let rows = try db.query(
            "SELECT uid, request_type, email, new_email, expires_at FROM auth_oob_codes WHERE code_hash = $1",
            [.binary(hash)])
        guard rows.count == 1, let type = OobRequestType(rawValue: try rows[0].string(1) ?? "") else { return nil }
        let row = rows[0]
        return OobCodeRows.Row(
            uid: try row.string(0) ?? "", requestType: type, email: try row.string(2) ?? "",
            newEmail: try row.string(3), expiresAt: try row.int(4) ?? 0)
    }

    func deleteOobCode(hash: [UInt8]) throws {
        try db.query("DELETE FROM auth_oob_codes WHERE code_hash = $1", [.binary(hash)])
    }

    func deleteOobCodes(expiredBefore seconds: Int64) throws {
        try db.query("DELETE FROM auth_oob_codes WHERE expires_at < $1", [.int(seconds)])
    }

    func savepoint(_ body: () throws -> Void) throws {
        try db.query("SAVEPOINT account_rows")
        do {
            try body()
            try db.query("RELEASE SAVEPOINT account_rows")
        } catch {
            try db.query("ROLLBACK TO SAVEPOINT account_rows")
            try db.query("RELEASE SAVEPOINT account_rows")
            throw error
        }
    }
}
