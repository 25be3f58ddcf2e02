import HearthCore
internal import HearthPostgres

/// The `write_receipts` table, as SQLite's: each key recorded with its answer in the write's own transaction and
/// pruned by count.
enum PostgresWriteReceipts {
    /// Records a key and its answer. A key already there (a resend racing its first attempt) fails the write with
    /// `UNAVAILABLE`, and the caller's transaction takes the write back out.
    static func record(_ id: String, answer: [UInt8], retention: Int, in db: PostgresConnection) throws {
        let inserted = try db.query(
            "INSERT INTO write_receipts(id, answer) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING sequence",
            [.text(id), .binary(answer)])
        guard inserted.count == 1, let sequence = try inserted[0].int(0) else {
            throw HearthError(
                .unavailable, "A write with this X-Hearth-Write-Id is being applied; retry for its answer.")
        }
        // Pruned every `retention` receipts (every 1,000 at most), so the table holds at most `retention` + 1,000.
        if sequence % Int64(max(1, min(1000, retention))) == 0 {
            try db.query("DELETE FROM write_receipts WHERE sequence <= $1", [.int(sequence - Int64(retention))])
        }
    }

    /// Sets the answer of a key this transaction recorded: a tree write records its key before it takes its
    /// change-log number (a racing resend then fails before it holds up any feed), and its answer, which may show
    /// the number, once it has it. Its own row, so this never waits.
    static func setAnswer(_ answer: [UInt8], for id: String, in db: PostgresConnection) throws {
        try db.query("UPDATE write_receipts SET answer = $2 WHERE id = $1", [.text(id), .binary(answer)])
    }

    /// The answer recorded with a key, or `nil`.
    static func answer(for id: String, in db: PostgresConnection) throws -> [UInt8]? {
        let rows = try db.query("SELECT answer FROM write_receipts WHERE id = $1", [.text(id)], binaryResults: true)
        return rows.count == 1 ? try rows[0].bytes(0) : nil
    }
}
