import HearthCore
internal import HearthPostgres

/// The index rows one commit changes, netted across its writes (an entry one write adds and a later one removes is
/// never written) and written just before the commit ends: a few multi-row statements per commit rather than some
/// per write.
struct PendingIndexRows {
    /// One row of `index_entries`.
    struct FieldRow: Hashable {
        var collection: String
        var id: String
        var field: String
        var kind: Int
        var key: [UInt8]

        init(collection: String, id: String, entry: IndexEntry) {
            self.collection = collection
            self.id = id
            field = entry.field
            kind = entry.kind.rawValue
            key = entry.key
        }
    }

    /// One row of `composite_entries`.
    struct CompositeRow: Hashable {
        var indexID: Int64
        var scope: String
        var key: [UInt8]
        var nameKey: [UInt8]
        var path: String
    }

    private var fieldInserts: Set<FieldRow> = []
    private var fieldDeletes: Set<FieldRow> = []
    private var compositeInserts: Set<CompositeRow> = []
    private var compositeDeletes: Set<CompositeRow> = []

    /// A row the commit adds; undoes an earlier write's deletion of it.
    mutating func insert(_ row: FieldRow) {
        if fieldDeletes.remove(row) == nil { fieldInserts.insert(row) }
    }

    /// A row the commit removes; undoes an earlier write's insertion of it.
    mutating func delete(_ row: FieldRow) {
        if fieldInserts.remove(row) == nil { fieldDeletes.insert(row) }
    }

    /// A composite row the commit adds; undoes an earlier write's deletion of it.
    mutating func insert(_ row: CompositeRow) {
        if compositeDeletes.remove(row) == nil { compositeInserts.insert(row) }
    }

    /// A composite row the commit removes; undoes an earlier write's insertion of it.
    mutating func delete(_ row: CompositeRow) {
        if compositeInserts.remove(row) == nil { compositeDeletes.insert(row) }
    }

    /// Writes the netted rows in the commit's transaction. Deletions join a list of keys, each matched through
    /// the primary key; insertions keep a row already there.
    func write(in db: PostgresConnection) throws {
        try run(
            Array(fieldDeletes), in: db,
            prefix: """
                DELETE FROM index_entries e USING (VALUES
                """,
            suffix: """
                ) AS v(collection, id, field, kind, key) WHERE e.collection = v.collection AND e.field = v.field
                AND e.kind = v.kind AND e.key = v.key AND e.id = v.id
                """, row: Self.values)
        try run(
            Array(fieldInserts), in: db, prefix: "INSERT INTO index_entries(collection, id, field, kind, key) VALUES ",
            suffix: " ON CONFLICT DO NOTHING", row: Self.values)
        try run(
            Array(compositeDeletes), in: db,
            prefix: """
                DELETE FROM composite_entries e USING (VALUES
                """,
            suffix: """
                ) AS v(index_id, scope, key, name_key, path) WHERE e.index_id = v.index_id AND e.scope = v.scope
                AND e.key = v.key AND e.name_key = v.name_key
                """, row: Self.values)
        try run(
            Array(compositeInserts), in: db,
            prefix: "INSERT INTO composite_entries(index_id, scope, key, name_key, path) VALUES ",
            suffix: " ON CONFLICT DO NOTHING", row: Self.values)
    }

    private static func values(_ row: FieldRow) -> [(PostgresParameter, cast: String)] {
        [
            (.text(row.collection), "::text"), (.text(row.id), "::text"), (.text(row.field), "::text"),
            (.int(Int64(row.kind)), "::int4"), (.binary(row.key), "::bytea"),
        ]
    }

    private static func values(_ row: CompositeRow) -> [(PostgresParameter, cast: String)] {
        [
            (.int(row.indexID), "::int8"), (.text(row.scope), "::text"), (.binary(row.key), "::bytea"),
            (.binary(row.nameKey), "::bytea"), (.text(row.path), "::text"),
        ]
    }

    private func run<Row>(
        _ rows: [Row], in db: PostgresConnection, prefix: String, suffix: String,
        row values: (Row) -> [(PostgresParameter, cast: String)]
    ) throws {
        for chunk in PostgresIndexRows.chunks(rows) {
            var parameters: [PostgresParameter] = []
            var tuples: [String] = []
            for row in chunk {
                var placeholders: [String] = []
                for (value, cast) in values(row) {
                    parameters.append(value)
                    placeholders.append("$\(parameters.count)\(cast)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            try db.query(prefix + tuples.joined(separator: ", ") + suffix, parameters)
        }
    }
}
