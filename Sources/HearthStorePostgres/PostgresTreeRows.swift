import HearthCore
internal import HearthPostgres
import HearthStore

/// The `tree_nodes` and `tree_changes` tables on one connection, for the tree logic every engine shares
/// (``TreeRowAccess``). A leaf is stored as a type byte and its value: `b` and one byte 0 or 1, `i` and a big-endian
/// Int64, `d` and a big-endian IEEE 754 bit pattern (so every double, −0 included, reads back exactly), `s` and UTF-8.
struct PostgresTreeRows: TreeRowAccess {
    let db: PostgresConnection

    /// Rows per `INSERT` statement (two parameters each, well under libpq's 65,535).
    private static let insertBatch = 1000

    func forEachRow(
        from lower: [UInt8], to upper: [UInt8], _ body: (UnsafeRawBufferPointer, TreeLeaf) throws -> Void
    ) throws {
        let rows = try db.query(
            "SELECT key, value FROM tree_nodes WHERE key >= $1 AND key < $2 ORDER BY key",
            [.binary(lower), .binary(upper)], binaryResults: true)
        for row in rows.rows {
            guard let key = try row.bytes(0), let leaf = Self.leaf(try row.bytes(1) ?? []) else { continue }
            try key.withUnsafeBytes { try body($0, leaf) }
        }
    }

    func leaf(at key: [UInt8]) throws -> TreeLeaf? {
        let rows = try db.query(
            "SELECT value FROM tree_nodes WHERE key = $1", [.binary(key)], binaryResults: true)
        return rows.count == 1 ? Self.leaf(try rows[0].bytes(0) ?? []) : nil
    }

    func firstKey(above lower: [UInt8], below upper: [UInt8]) throws -> [UInt8]? {
        let rows = try db.query(
            "SELECT key FROM tree_nodes WHERE key > $1 AND key < $2 ORDER BY key LIMIT 1",
            [.binary(lower), .binary(upper)], binaryResults: true)
        return rows.count == 1 ? try rows[0].bytes(0) : nil
    }

    func hasRow(from lower: [UInt8], to upper: [UInt8], excluding excluded: [UInt8]) throws -> Bool {
        try db.query(
            "SELECT 1 FROM tree_nodes WHERE key >= $1 AND key < $2 AND key <> $3 LIMIT 1",
            [.binary(lower), .binary(upper), .binary(excluded)]
        ).count == 1
    }

    func deleteRows(from lower: [UInt8], to upper: [UInt8]) throws {
        try db.query("DELETE FROM tree_nodes WHERE key >= $1 AND key < $2", [.binary(lower), .binary(upper)])
    }

    func deleteRow(at key: [UInt8]) throws {
        try db.query("DELETE FROM tree_nodes WHERE key = $1", [.binary(key)])
    }

    /// Inserts in statements of many rows each: a PUT of a large object costs a few round trips, not one per leaf.
    func insertRows(_ rows: [(key: [UInt8], leaf: TreeLeaf)]) throws {
        var start = 0
        while start < rows.count {
            let batch = rows[start..<min(start + Self.insertBatch, rows.count)]
            let values = (0..<batch.count).map { "($\(2 * $0 + 1), $\(2 * $0 + 2))" }.joined(separator: ", ")
            try db.query(
                "INSERT INTO tree_nodes(key, value) VALUES " + values,
                batch.flatMap { row in [PostgresParameter.binary(row.key), .binary(Self.stored(row.leaf))] })
            start += batch.count
        }
    }

    /// The change as the applier logs it, not yet numbered (sequence 0) nor stored: the write takes its number last,
    /// just before `COMMIT` (PostgresCommitOrder), and then stores it with ``insertChange(_:)``.
    func appendChange(
        commitTime: Int64, namespace: String, kind: TreeChange.Kind, path: TreePath, updates: [TreeChange.Update]
    ) throws -> TreeChange {
        TreeChange(sequence: 0, commitTime: commitTime, namespace: namespace, kind: kind, path: path, updates: updates)
    }

    /// Stores a numbered change in the tree's change log.
    func insertChange(_ change: TreeChange) throws {
        try db.query(
            """
            INSERT INTO tree_changes(sequence, commit_time, namespace, kind, path, data)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            [
                .int(change.sequence), .int(change.commitTime), .text(change.namespace), .text(change.kind.rawValue),
                .text(change.path.description), .binary(TreeChangeData.encode(change.kind, change.updates)),
            ])
    }

    /// Change-log entries after `sequence` and at most `through` (a final point), oldest first.
    func changes(after sequence: Int64, through: Int64, limit: Int) throws -> [TreeChange] {
        let rows = try db.query(
            """
            SELECT sequence, commit_time, namespace, kind, path, data FROM tree_changes
            WHERE sequence > $1 AND sequence <= $3 ORDER BY sequence LIMIT $2
            """, [.int(sequence), .int(Int64(max(0, limit))), .int(through)], binaryResults: true)
        return try rows.rows.map { row in
            let kind = TreeChange.Kind(rawValue: try row.string(3) ?? "") ?? .put
            let path = TreeChangeData.storedPath(try row.string(4) ?? "")
            return TreeChange(
                sequence: try row.int(0) ?? 0, commitTime: try row.int(1) ?? 0, namespace: try row.string(2) ?? "",
                kind: kind, path: path, updates: try TreeChangeData.decode(kind, try row.bytes(5) ?? []))
        }
    }

    /// The numbers of `namespace`'s change-log entries above `sequence` that this transaction sees: past a final point,
    /// only writes that committed before numbers taken earlier, so few.
    func sequences(of namespace: String, after sequence: Int64) throws -> Set<Int64> {
        let rows = try db.query(
            "SELECT sequence FROM tree_changes WHERE sequence > $1 AND namespace = $2",
            [.int(sequence), .text(namespace)])
        return Set(try rows.rows.map { try $0.int(0) ?? 0 })
    }

    /// A leaf as stored.
    static func stored(_ leaf: TreeLeaf) -> [UInt8] {
        switch leaf {
        case .bool(let value): [UInt8(ascii: "b"), value ? 1 : 0]
        case .integer(let value): [UInt8(ascii: "i")] + bigEndian(UInt64(bitPattern: value))
        case .double(let value): [UInt8(ascii: "d")] + bigEndian(value.bitPattern)
        case .string(let value): [UInt8(ascii: "s")] + Array(value.utf8)
        }
    }

    /// The leaf stored as `bytes`, or `nil` for bytes no Hearth wrote.
    static func leaf(_ bytes: [UInt8]) -> TreeLeaf? {
        guard let tag = bytes.first else { return nil }
        let body = bytes.dropFirst()
        switch tag {
        case UInt8(ascii: "b") where body.count == 1: return .bool(body.first == 1)
        case UInt8(ascii: "i") where body.count == 8: return .integer(Int64(bitPattern: word(body)))
        case UInt8(ascii: "d") where body.count == 8: return .double(Double(bitPattern: word(body)))
        case UInt8(ascii: "s"): return .string(String(decoding: body, as: UTF8.self))
        default: return nil
        }
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    private static func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
