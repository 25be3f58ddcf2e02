import HearthCore
import HearthSQLite
import HearthStore

/// The `changes` table: appended in the commit's transaction, read by listeners, pruned by age.
enum ChangeLog: ChangeLogTable {
    @discardableResult
    static func append(
        commitTime: Timestamp, path: ResourcePath, before: StoredDocument?, after: StoredDocument?,
        in db: SQLiteConnection
    ) throws -> ChangeRecord {
        try DocumentRows.run(
            """
            INSERT INTO changes(commit_time, path, before_fields, before_create_time, before_update_time,
                                after_fields, after_create_time, after_update_time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, in: db
        ) { statement in
            statement.bind(commitTime.microseconds, at: 1)
            statement.bind(path.description, at: 2)
            func bind(_ document: StoredDocument?, at offset: Int32) {
                if let document {
                    statement.bind(document.fieldsJSON, at: offset)
                    statement.bind(document.createTime.microseconds, at: offset + 1)
                    statement.bind(document.updateTime.microseconds, at: offset + 2)
                } else {
                    for column in offset..<(offset + 3) { statement.bindNull(at: column) }
                }
            }
            bind(before, at: 3)
            bind(after, at: 6)
        }
        return ChangeRecord(
            sequence: db.lastInsertRowID, commitTime: commitTime, path: path, before: before, after: after)
    }

    /// Entries after `sequence`, oldest first.
    static func records(after sequence: Int64, limit: Int, in db: SQLiteConnection) throws -> [ChangeRecord] {
        let rows = try db.fetchAll(
            """
            SELECT sequence, commit_time, path, before_fields, before_create_time, before_update_time,
                   after_fields, after_create_time, after_update_time
            FROM changes WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)
            """)
        return rows.map { row in
            let path = ResourcePath(segments: row[2].text.split(separator: "/").map(String.init))
            func document(_ offset: Int) -> StoredDocument? {
                guard case .blob(let fields) = row[offset] else { return nil }
                return StoredDocument(
                    path: path, fieldsJSON: fields, createTime: Timestamp(microseconds: row[offset + 1].integer),
                    updateTime: Timestamp(microseconds: row[offset + 2].integer))
            }
            return ChangeRecord(
                sequence: row[0].integer, commitTime: Timestamp(microseconds: row[1].integer), path: path,
                before: document(3), after: document(6))
        }
    }

    /// The last sequence number handed out (0 before the first commit), even if its row was pruned since.
    static func lastSequence(in db: SQLiteConnection) throws -> Int64 {
        try db.fetchOne("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")?.int64(0) ?? 0
    }

    /// Drops all but the newest `retention` rows.
    static func prune(retention: Int, in db: SQLiteConnection) throws {
        try db.execute(
            "DELETE FROM changes WHERE sequence <= (SELECT MAX(sequence) FROM changes) - \(retention)")
    }
}

extension SQLiteValue {
    /// The integer, or 0.
    var integer: Int64 {
        if case .integer(let value) = self { return value }
        return 0
    }

    /// The text, or "".
    var text: String {
        if case .text(let value) = self { return value }
        return ""
    }
}
