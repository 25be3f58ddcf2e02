import HearthCore
import HearthSQLite

/// The `write_receipts` table: the idempotency keys of applied writes and the answers they gave, written in each
/// write's own savepoint (a rolled-back write leaves no receipt) and pruned by count, so a resend of a write whose
/// answer was lost is answered from here instead of applied twice.
enum WriteReceipts {
    /// How many receipts to keep by default: a resend comes when the client reconnects, long before this many later
    /// writes with keys have pushed its receipt out.
    static let defaultRetention = 100_000

    /// Records a key and its answer. A key already there — a resend racing its first attempt, which the API's lookup
    /// could not see yet, since both were in flight — fails the write with `UNAVAILABLE`, rolling it back, so the
    /// client retries and is then answered from the receipt. The caller's savepoint takes the write back out.
    static func record(_ id: String, answer: [UInt8], retention: Int, in db: SQLiteConnection) throws {
        try db.execute("INSERT OR IGNORE INTO write_receipts(id, answer) VALUES (\(id), \(answer))")
        if db.changes == 0 {
            throw HearthError(
                .unavailable, "A write with this X-Hearth-Write-Id is being applied; retry for its answer.")
        }
        // Pruned every `retention` receipts (every 1,000 at most), so the table holds at most `retention` + 1,000.
        let sequence = db.lastInsertRowID
        if sequence % Int64(max(1, min(1000, retention))) == 0 {
            try db.execute("DELETE FROM write_receipts WHERE sequence <= \(sequence - Int64(retention))")
        }
    }

    /// The answer recorded with a key, or `nil`.
    static func answer(for id: String, in db: SQLiteConnection) throws -> [UInt8]? {
        try db.fetchOne("SELECT answer FROM write_receipts WHERE id = \(id)")?.blob(0)
    }
}
