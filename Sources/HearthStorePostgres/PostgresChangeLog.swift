import HearthCore
internal import HearthPostgres
import HearthStore

/// The `changes` table and the `commit_clock` row: each commit takes the clock's row lock first, which orders
/// commits, then appends its changes with the sequences that follow.
enum PostgresChangeLog {
    /// Locks the clock row and returns the commit's time — `now`, or just after the previous commit's when the
    /// clock has not moved past it, so commit times strictly increase — and the last sequence handed out.
    static func beginCommit(now: Timestamp, in db: PostgresConnection) throws -> (Timestamp, Int64) {
        let row = try db.query(
            """
            UPDATE commit_clock SET last_commit_time = greatest($1, last_commit_time + 1) WHERE id = 1
            RETURNING last_commit_time, last_sequence
            """, [.int(now.microseconds)], binaryResults: true)[0]
        return (Timestamp(microseconds: try row.int(0) ?? 0), try row.int(1) ?? 0)
    }

    /// Records the commit's last sequence on the clock row (still locked by ``beginCommit(now:in:)``).
    static func endCommit(lastSequence: Int64, in db: PostgresConnection) throws {
        try db.query("UPDATE commit_clock SET last_sequence = $1 WHERE id = 1", [.int(lastSequence)])
    }

    /// Appends one change at `sequence`.
    static func append(_ record: ChangeRecord, in db: PostgresConnection) throws {
        func image(_ document: StoredDocument?) -> [PostgresParameter] {
            guard let document else { return [.null, .null, .null] }
            return [
                .binary(document.fieldsJSON), .int(document.createTime.microseconds),
                .int(document.updateTime.microseconds),
            ]
        }
        try db.query(
            """
            INSERT INTO changes(sequence, commit_time, path, before_fields, before_create_time, before_update_time,
                                after_fields, after_create_time, after_update_time)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [.int(record.sequence), .int(record.commitTime.microseconds), .text(record.path.description)]
                + image(record.before) + image(record.after))
    }

    /// Entries after `sequence`, oldest first.
    static func records(after sequence: Int64, limit: Int, in db: PostgresConnection) throws -> [ChangeRecord] {
        let rows = try db.query(
            """
            SELECT sequence, commit_time, path, before_fields, before_create_time, before_update_time,
                   after_fields, after_create_time, after_update_time
            FROM changes WHERE sequence > $1 ORDER BY sequence LIMIT $2
            """, [.int(sequence), .int(Int64(max(0, limit)))], binaryResults: true)
        return try rows.rows.map { row in
            let path = ResourcePath(segments: (try row.string(2) ?? "").split(separator: "/").map(String.init))
            func document(_ offset: Int) throws -> StoredDocument? {
                guard let fields = try row.bytes(offset) else { return nil }
                return StoredDocument(
                    path: path, fieldsJSON: fields, createTime: Timestamp(microseconds: try row.int(offset + 1) ?? 0),
                    updateTime: Timestamp(microseconds: try row.int(offset + 2) ?? 0))
            }
            return ChangeRecord(
                sequence: try row.int(0) ?? 0, commitTime: Timestamp(microseconds: try row.int(1) ?? 0), path: path,
                before: try document(3), after: try document(6))
        }
    }

    /// The last sequence handed to a committed change (0 before the first).
    static func head(in db: PostgresConnection) throws -> Int64 {
        try db.query("SELECT last_sequence FROM commit_clock WHERE id = 1")[0].int(0) ?? 0
    }
}
