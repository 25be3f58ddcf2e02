import HearthCore
import HearthCrypto
import HearthSQLite

/// One-time codes: 32 random bytes (base64url) handed out once in a link, stored only as their SHA-256.
enum OobCodes {
    static func generate() -> (code: String, hash: [UInt8]) {
        let code = Base64URL.encode(SecureRandom.bytes(32))
        return (code, hash(code))
    }

    static func hash(_ code: String) -> [UInt8] { SHA256.hash(Array(code.utf8)) }

    /// The code's row, still usable: `INVALID_OOB_CODE` when unknown or used, `EXPIRED_OOB_CODE` when past its expiry.
    static func peek(hash: [UInt8], at now: Int64, in db: any AccountRows) throws -> OobCodeRows.Row {
        guard let row = try OobCodeRows.find(hash: hash, in: db) else { throw AuthError.invalidOobCode }
        guard row.expiresAt > now else { throw AuthError.expiredOobCode }
        return row
    }

    /// As `peek`, and deletes the code so it cannot be used twice (inside the caller's transaction, so a failed
    /// step puts it back).
    static func take(hash: [UInt8], at now: Int64, in db: any AccountRows) throws -> OobCodeRows.Row {
        let row = try peek(hash: hash, at: now, in: db)
        try OobCodeRows.delete(hash: hash, in: db)
        return row
    }
}
