import HearthCore
import HearthSQLite
import HearthStore

/// The `tree_changes` table: one row per committed tree write, appended in the write's own savepoint (so a
/// rolled-back write leaves no row), read back by listeners that fell behind, and pruned by count.
///
/// It sits beside the documents' `changes` table rather than inside it so document readers never meet tree rows;
/// both are written in the same group-commit transaction and carry commit times from the same strictly increasing
/// clock, so `commit_time` orders document and tree changes against each other.
enum TreeChangeTable: ChangeLogTable {
    /// Appends a change and returns it with its sequence number. `data` is the export-format JSON of the PUT's
    /// value, or for a PATCH an object from relative path to value.
    static func append(
        commitTime: Int64, namespace: String, kind: TreeChange.Kind, path: TreePath, updates: [TreeChange.Update],
        in db: SQLiteConnection
    ) throws -> TreeChange {
        try db.execute(
            """
            INSERT INTO tree_changes(commit_time, namespace, kind, path, data)
            VALUES (\(commitTime), \(namespace), \(kind.rawValue), \(path.description), \(TreeChangeData.encode(kind, updates)))
            """)
        return TreeChange(
            sequence: db.lastInsertRowID, commitTime: commitTime, namespace: namespace, kind: kind, path: path,
            updates: updates)
    }

    /// Changes after `sequence`, oldest first.
    static func records(after sequence: Int64, limit: Int, in db: SQLiteConnection) throws -> [TreeChange] {
        let rows = try db.fetchAll(
            """
            SELECT sequence, commit_time, namespace, kind, path, data FROM tree_changes
            WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)
            """)
        return try rows.map { row in
            let kind = TreeChange.Kind(rawValue: row.string(3) ?? "") ?? .put
            let path = TreeChangeData.storedPath(row.string(4) ?? "")
            return TreeChange(
                sequence: row.int64(0) ?? 0, commitTime: row.int64(1) ?? 0, namespace: row.string(2) ?? "", kind: kind,
                path: path, updates: try TreeChangeData.decode(kind, row.blob(5) ?? []))
        }
    }

    /// The last sequence number handed out (0 before the first tree write), even if its row was pruned since.
    static func lastSequence(in db: SQLiteConnection) throws -> Int64 {
        try db.fetchOne("SELECT seq FROM sqlite_sequence WHERE name = 'tree_changes'")?.int64(0) ?? 0
    }

    /// Drops all but the newest `retention` rows.
    static func prune(retention: Int, in db: SQLiteConnection) throws {
        try db.execute(
            "DELETE FROM tree_changes WHERE sequence <= (SELECT MAX(sequence) FROM tree_changes) - \(retention)")
    }
}
