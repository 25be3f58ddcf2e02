import HearthCore
import HearthSQLite
import HearthStore

/// The `tree_nodes` table on one SQLite connection (the writer's, or a reader's inside its transaction), for the
/// tree logic every engine shares (``TreeRowAccess``). A leaf keeps its type in SQLite's own: integers as INTEGER,
/// doubles as REAL, strings as TEXT, Booleans as a one-byte BLOB. Change-log entries go to ``TreeChangeTable``.
struct SQLiteTreeRows: TreeRowAccess {
    let db: SQLiteConnection

    func forEachRow(
        from lower: [UInt8], to upper: [UInt8], _ body: (UnsafeRawBufferPointer, TreeLeaf) throws -> Void
    ) throws {
        try db.forEachRow(
            "SELECT key, value FROM tree_nodes WHERE key >= \(lower) AND key < \(upper) ORDER BY key"
        ) { statement in
            if let leaf = Self.leaf(statement.value(at: 1)) { try statement.withBlob(at: 0) { try body($0, leaf) } }
        }
    }

    func leaf(at key: [UInt8]) throws -> TreeLeaf? {
        try db.fetchOne("SELECT value FROM tree_nodes WHERE key = \(key)").flatMap { Self.leaf($0[0]) }
    }

    func firstKey(above lower: [UInt8], below upper: [UInt8]) throws -> [UInt8]? {
        let row = try db.fetchOne(
            "SELECT key FROM tree_nodes WHERE key > \(lower) AND key < \(upper) ORDER BY key LIMIT 1")
        guard case .blob(let key)? = row?[0] else { return nil }
        return key
    }

    func hasRow(from lower: [UInt8], to upper: [UInt8], excluding excluded: [UInt8]) throws -> Bool {
        try db.fetchOne(
            "SELECT 1 FROM tree_nodes WHERE key >= \(lower) AND key < \(upper) AND key != \(excluded) LIMIT 1")
            != nil
    }

    func deleteRows(from lower: [UInt8], to upper: [UInt8]) throws {
        try db.execute("DELETE FROM tree_nodes WHERE key >= \(lower) AND key < \(upper)")
    }

    func deleteRow(at key: [UInt8]) throws {
        try db.execute("DELETE FROM tree_nodes WHERE key = \(key)")
    }

    func insertRows(_ rows: [(key: [UInt8], leaf: TreeLeaf)]) throws {
        for row in rows {
            try db.execute("INSERT INTO tree_nodes(key, value) VALUES (\(row.key), \(Self.stored(row.leaf)))")
        }
    }

    func appendChange(
        commitTime: Int64, namespace: String, kind: TreeChange.Kind, path: TreePath, updates: [TreeChange.Update]
    ) throws -> TreeChange {
        try TreeChangeTable.append(
            commitTime: commitTime, namespace: namespace, kind: kind, path: path, updates: updates, in: db)
    }

    /// A leaf as stored.
    static func stored(_ leaf: TreeLeaf) -> SQLiteValue {
        switch leaf {
        case .bool(let value): .blob([value ? 1 : 0])
        case .integer(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        }
    }

    /// The leaf a stored value holds.
    static func leaf(_ value: SQLiteValue) -> TreeLeaf? {
        switch value {
        case .integer(let value): .integer(value)
        case .real(let value): .double(value)
        case .text(let value): .string(value)
        case .blob(let bytes): .bool(bytes.first == 1)
        case .null: nil
        }
    }
}
