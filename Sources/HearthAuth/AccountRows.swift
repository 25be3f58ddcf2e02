/// The accounts' rows in one storage engine, as seen inside one write transaction or one read snapshot.
///
/// The account logic (`UserRows`, `ProviderLinkRows`, `RefreshTokenRows`, `OobCodeRows`, `OobCodes` and the
/// `AccountService` handlers) runs against this protocol only, so a second engine (PostgreSQL) stores accounts without
/// any handler changing. Implementations run plain statements; the checks that decide an answer (which field is a
/// duplicate, whether a code expired) stay in the engine-neutral callers so both engines answer alike.
package protocol AccountRows {
    /// The account `uid`, without its provider links.
    func user(uid: String) throws -> UserRecord?
    /// The account that owns `email` (not one that shares it), without its provider links.
    func user(email: String) throws -> UserRecord?
    /// The account with `phoneNumber`, without its provider links.
    func user(phoneNumber: String) throws -> UserRecord?
    /// Whether `uid` exists, is disabled, and since when its tokens are valid.
    func tokenStatus(uid: String) throws -> (disabled: Bool, validSince: Int64)?
    /// Up to `limit` accounts with uids after `afterUID`, in uid order, without links.
    func users(after afterUID: String?, limit: Int) throws -> [UserRecord]
    /// Up to `limit` accounts after skipping `offset`, in uid order, without links.
    func users(limit: Int, offset: Int) throws -> [UserRecord]
    /// How many accounts exist.
    func userCount() throws -> Int
    /// Inserts `user` as it is (uniqueness is checked by the caller first).
    func insertUser(_ user: UserRecord) throws
    /// Writes every field of `user` over the row with its uid; whether such a row existed.
    func updateUser(_ user: UserRecord) throws -> Bool
    /// Deletes `uid` with its links, refresh tokens and codes; whether it existed.
    func deleteUser(uid: String) throws -> Bool
    /// Deletes every account (with everything that belongs to one).
    func deleteAllUsers() throws

    /// The provider identities linked to `uid`, in provider order.
    func links(uid: String) throws -> [ProviderLink]
    /// Up to `limit` identities at `providerID`, in raw-ID order.
    func links(providerID: String, limit: Int) throws -> [ProviderLink]
    /// The account `rawID` at `providerID` is linked to.
    func linkOwner(providerID: String, rawID: String) throws -> String?
    /// Links `link` to `uid`, or refreshes the profile of the existing link.
    func upsertLink(_ link: ProviderLink, uid: String, at milliseconds: Int64) throws
    /// Unlinks `providerID` from `uid`.
    func deleteLink(providerID: String, uid: String) throws

    /// Stores a refresh token by its SHA-256.
    func insertRefreshToken(hash: [UInt8], row: RefreshTokenRows.Row) throws
    /// The refresh token with SHA-256 `hash`.
    func refreshToken(hash: [UInt8]) throws -> RefreshTokenRows.Row?
    /// Records that the token was used at `milliseconds`.
    func touchRefreshToken(hash: [UInt8], at milliseconds: Int64) throws
    /// Revokes every refresh token of `uid`.
    func deleteRefreshTokens(uid: String) throws
    /// How many refresh tokens `uid` holds.
    func refreshTokenCount(uid: String) throws -> Int

    /// Stores a one-time code by its SHA-256.
    func insertOobCode(hash: [UInt8], row: OobCodeRows.Row, createdAt: Int64) throws
    /// The one-time code with SHA-256 `hash`.
    func oobCode(hash: [UInt8]) throws -> OobCodeRows.Row?
    /// Deletes the code with SHA-256 `hash`.
    func deleteOobCode(hash: [UInt8]) throws
    /// Deletes codes that expired before `seconds`.
    func deleteOobCodes(expiredBefore seconds: Int64) throws

    /// Runs `body` in a nested savepoint of the open transaction: an error it throws undoes only its writes, then
    /// passes through.
    func savepoint(_ body: () throws -> Void) throws
}
