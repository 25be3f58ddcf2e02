package import HearthCore
package import HearthSQLite
package import HearthStoreSQLite

/// Accounts in `hearth export`'s `accounts.jsonl` and back (`hearth import`): one JSON object per account with every
/// field the store keeps — the password hash as stored (so the old password still signs in), the times in Unix
/// milliseconds, custom claims as their JSON text — and its linked provider identities.
package enum AccountTransfer {
    /// Every account of the snapshot `db` (the data directory's database), in uid order, with its provider links;
    /// none when the accounts were never opened there.
    package static func forEachAccount(in db: SQLiteConnection, _ body: (UserRecord) throws -> Void) throws {
        guard try StoreTransfer.hasTable("auth_users", in: db) else { return }
        var after: String?
        while true {
            let page = try UserRows.page(after: after, limit: 500, in: SQLiteAccountRows(db: db))
            for user in page { try body(user) }
            guard let last = page.last, page.count == 500 else { return }
            after = last.uid
        }
    }

    /// `user` as one export line's object.
    package static func json(_ user: UserRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "uid": .string(user.uid), "emailVerified": .bool(user.emailVerified), "disabled": .bool(user.disabled),
            "validSince": .integer(user.validSince), "createdAt": .integer(user.createdAt),
        ]
        func put(_ key: String, _ value: String?) { if let value { object[key] = .string(value) } }
        func put(_ key: String, _ value: Int64?) { if let value { object[key] = .integer(value) } }
        put("email", user.email)
        put("passwordHash", user.passwordHash)
        put("passwordUpdatedAt", user.passwordUpdatedAt)
        put("displayName", user.displayName)
        put("photoUrl", user.photoURL)
        put("phoneNumber", user.phoneNumber)
        put("customClaims", user.customClaims)
        put("lastLoginAt", user.lastLoginAt)
        put("lastRefreshAt", user.lastRefreshAt)
        if user.customAuth { object["customAuth"] = true }
        if user.emailIsShared { object["emailIsShared"] = true }
        if !user.providerLinks.isEmpty {
            object["providers"] = .array(user.providerLinks.map { .object($0.json) })
        }
        return .object(object)
    }

    /// The account an export line's object describes.
    /// - Throws: `INVALID_ARGUMENT` naming the member that is missing or of the wrong type.
    package static func user(_ json: JSONValue) throws(HearthError) -> UserRecord {
        guard case .object(let object) = json else { throw .invalidArgument("An account line must be a JSON object.") }
        func string(_ key: String) throws(HearthError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw .invalidArgument("The account member \(key) must be a string.")
            }
        }
        func integer(_ key: String) throws(HearthError) -> Int64? {
            switch object[key] {
            case nil, .null?: return nil
            case .integer(let number)?: return number
            default: throw .invalidArgument("The account member \(key) must be a whole number.")
            }
        }
        func flag(_ key: String) throws(HearthError) -> Bool {
            switch object[key] {
            case nil, .null?: return false
            case .bool(let value)?: return value
            default: throw .invalidArgument("The account member \(key) must be true or false.")
            }
        }
        guard let uid = try string("uid"), !uid.isEmpty else { throw .invalidArgument("An account line has no uid.") }
        guard let createdAt = try integer("createdAt") else {
            throw .invalidArgument("The account \(uid) has no createdAt.")
        }
        var user = UserRecord(uid: uid, validSince: try integer("validSince") ?? 0, createdAt: createdAt)
        user.email = try string("email")
        user.emailVerified = try flag("emailVerified")
        user.emailIsShared = try flag("emailIsShared") && user.email != nil
        user.passwordHash = try string("passwordHash")
        user.passwordUpdatedAt = try integer("passwordUpdatedAt")
        user.displayName = try string("displayName")
        user.photoURL = try string("photoUrl")
        user.phoneNumber = try string("phoneNumber")
        user.disabled = try flag("disabled")
        user.customClaims = try string("customClaims")
        user.lastLoginAt = try integer("lastLoginAt")
        user.lastRefreshAt = try integer("lastRefreshAt")
        user.customAuth = try flag("customAuth")
        if let providers = object["providers"] {
            guard case .array(let links) = providers else {
                throw .invalidArgument("The account \(uid)'s providers must be an array.")
            }
            for link in links {
                let parsed = ProviderLink(json: link)
                guard !parsed.providerID.isEmpty, !parsed.rawID.isEmpty else {
                    throw .invalidArgument("A provider of the account \(uid) has no providerId or rawId.")
                }
                user.providerLinks.append(parsed)
            }
        }
        return user
    }

    /// Adds `users` to `database` in one transaction of its writer (creating the accounts' tables if needed): every
    /// one or, when any is refused (a uid, email or phone number taken twice), none.
    package static func restore(_ users: [UserRecord], into database: SQLiteDatabase, at milliseconds: Int64) throws {
        try database.migrate(component: AccountSchema.component, migrations: AccountSchema.migrations)
        try database.writeAndWait { connection in
            let db = SQLiteAccountRows(db: connection)
            for user in users {
                do {
                    try UserRows.insert(user, in: db)
                } catch let error as AuthError {
                    throw HearthError.invalidArgument("The account \(user.uid) cannot be imported: \(error.message)")
                }
                for link in user.providerLinks {
                    try ProviderLinkRows.upsert(link, uid: user.uid, at: milliseconds, in: db)
                }
            }
        }
    }
}
