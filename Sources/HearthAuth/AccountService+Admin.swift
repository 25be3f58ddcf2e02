public import HearthCore
import HearthCrypto

extension AccountService {
    /// `accounts:lookup` for a client: the caller's own account.
    public func lookup(idToken: String?) throws(AuthError) -> UserRecord {
        guard let idToken, !idToken.isEmpty else { throw AuthError.missingIDToken }
        return try account(forIDToken: idToken).user
    }

    /// `accounts:lookup` for an admin: every account matching any of the uids, emails, phone numbers or provider
    /// identities (`federatedUserId`), each once.
    public func lookup(
        uids: [String], emails: [String], phoneNumbers: [String],
        identities: [(providerID: String, rawID: String)] = []
    ) throws(AuthError) -> [UserRecord] {
        try database.read { db in
            var found: [UserRecord] = []
            var seen: Set<String> = []
            func add(_ user: UserRecord?) {
                if let user, seen.insert(user.uid).inserted { found.append(user) }
            }
            for uid in uids { add(try UserRows.user(uid: uid, in: db)) }
            for email in emails { add(try UserRows.user(email: Validation.canonicalEmail(email), in: db)) }
            for phone in phoneNumbers { add(try UserRows.user(phoneNumber: phone, in: db)) }
            for identity in identities {
                let owner = try ProviderLinkRows.owner(providerID: identity.providerID, rawID: identity.rawID, in: db)
                add(try owner.flatMap { try UserRows.user(uid: $0, in: db) })
            }
            return found
        }
    }

    /// `accounts:createAuthUri`'s answer for an address: whether it has an account, and how it signs in
    /// (`password` when it has one, then each linked provider). With email-enumeration protection, `nil`: the caller learns nothing.
    public func signInMethods(email: String?) throws(AuthError) -> (registered: Bool, methods: [String])? {
        guard let email, !email.isEmpty else { throw AuthError("MISSING_IDENTIFIER") }
        guard Validation.isValidEmail(email) else { throw AuthError("INVALID_IDENTIFIER") }
        guard !configuration.emailEnumerationProtection else { return nil }
        let canonical = Validation.canonicalEmail(email)
        let user = try database.read { db in try UserRows.user(email: canonical, in: db) }
        guard let user else { return (false, []) }
        return (true, (user.hasPassword ? ["password"] : []) + user.providerLinks.map(\.providerID))
    }

    /// `accounts:delete`: the caller's own account (client, by ID token) or any (admin, by uid).
    public func delete(idToken: String?, localID: String?, context: RequestContext) throws(AuthError) {
        let uid: String
        if context.isAdmin, idToken == nil {
            guard let localID, !localID.isEmpty else { throw AuthError.missingLocalID }
            uid = localID
        } else {
            guard let idToken, !idToken.isEmpty else { throw AuthError.missingIDToken }
            uid = try account(forIDToken: idToken).user.uid
        }
        let deleted = try database.write { db in try UserRows.delete(uid: uid, in: db) }
        guard deleted else { throw AuthError.userNotFound }
        log(.info, "account deleted", [:])
    }

    /// `accounts:batchDelete` (admin): deletes up to 1000 accounts; enabled ones only with `force`.
    /// Returns the refused ones as (index, uid, message).
    public func batchDelete(
        uids: [String], force: Bool
    ) throws(AuthError) -> [(index: Int, uid: String, message: String)] {
        guard !uids.isEmpty, uids.count <= 1000 else { throw AuthError("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        return try database.write { db in
            var refused: [(index: Int, uid: String, message: String)] = []
            for (index, uid) in uids.enumerated() {
                guard let user = try UserRows.user(uid: uid, in: db) else { continue }
                if !user.disabled && !force {
                    refused.append((index, uid, "NOT_DISABLED : Disable the account before batch deletion."))
                } else {
                    try UserRows.delete(uid: uid, in: db)
                }
            }
            return refused
        }
    }

    /// `accounts:batchGet` (admin): one page of accounts in uid order after `pageToken` (the last uid of the
    /// previous page). The next page token is set whenever the page is full.
    public func listUsers(
        maxResults: Int, pageToken: String?
    ) throws(AuthError) -> (users: [UserRecord], nextPageToken: String?) {
        let limit = min(max(maxResults, 1), 1000)
        let users = try database.read { db in try UserRows.page(after: pageToken, limit: limit, in: db) }
        return (users, users.count == limit ? users.last?.uid : nil)
    }

    /// `accounts:query` (admin): the number of accounts, and unless `countOnly` up to `limit` of them from `offset`
    /// in uid order.
    public func queryUsers(
        limit: Int, offset: Int, countOnly: Bool
    ) throws(AuthError) -> (count: Int, users: [UserRecord]) {
        try database.read { db in
            let count = try UserRows.count(in: db)
            guard !countOnly else { return (count, []) }
            return (count, try UserRows.page(limit: min(max(limit, 1), 500), offset: max(offset, 0), in: db))
        }
    }

    /// Every account, in uid order: for `hearth users list`.
    public func allUsers() throws(AuthError) -> [UserRecord] {
        var users: [UserRecord] = []
        var token: String?
        repeat {
            let page = try listUsers(maxResults: 1000, pageToken: token)
            users += page.users
            token = page.nextPageToken
        } while token != nil
        return users
    }

    /// Development mode's wipe (`DELETE /emulator/v1/projects/{p}/accounts`).
    public func deleteAllAccounts() throws(AuthError) {
        try database.write { db in try UserRows.deleteAll(in: db) }
        devCodes.removeAll()
    }

    // MARK: Credentials and keys

    /// The caller behind an ID token, for every other API (`request.auth` in rules): refuses tokens that are
    /// malformed, unsigned, foreign, expired or revoked, and tokens of deleted or disabled accounts.
    public func authContext(idToken: String) throws(AuthError) -> AuthContext {
        let verified = try idTokens.verify(idToken)
        let uid = verified.uid
        let status = try database.tokenStatuses.status(uid: uid) { () throws(AuthError) in
            try database.read { db in try UserRows.tokenStatus(uid: uid, in: db) }
        }
        try Self.checkAccount(of: verified, status)
        return AuthContext(uid: verified.uid, claims: verified.claims, isAdmin: false)
    }

    /// Checks an ID token's signature, issuer, audience and lifetime only — no account lookup.
    public func verifyIDToken(_ token: String) throws(AuthError) -> VerifiedIDToken {
        try idTokens.verify(token)
    }

    /// Whether `credential` (the part after `Bearer `) is the admin credential: the configured admin key, or `owner`
    /// in development mode (what the Admin SDKs send to an emulator host). Compared in constant time.
    public func isAdminCredential(_ credential: String) -> Bool {
        if let key = configuration.adminKey, !key.isEmpty, ConstantTime.equals(credential, key) { return true }
        // The length first: lowercasing every ID token (about 900 bytes) showed in profiles of signed-in writes.
        return configuration.devMode && credential.utf8.count == 5 && credential.lowercased() == "owner"
    }

    /// The public signing keys as JWKs (`{"keys":[…]}` members), newest first.
    public func publishedKeys() -> [[String: String]] {
        keys.published().map { $0.publicKey.jwk(keyID: $0.id) }
    }

    /// Makes a new signing key; the old one keeps verifying until the tokens it signed have expired.
    /// - Returns: the new key's ID.
    @discardableResult
    public func rotateSigningKey() throws(AuthError) -> String {
        let id = try keys.rotate()
        log(.info, "signing key rotated", ["kid": id])
        return id
    }

    /// The signing keys on record, oldest first: (ID, created, retired) in Unix seconds.
    public func signingKeys() -> [(id: String, createdAt: Int64, retiredAt: Int64?)] {
        keys.all().map { ($0.id, $0.createdAt, $0.retiredAt) }
    }
}
