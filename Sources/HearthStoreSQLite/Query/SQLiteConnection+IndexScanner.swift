package import HearthCore
package import HearthSQLite
package import HearthStore

/// SQLite's answers to the engine-neutral scans: each one SQL statement over a primary key or
/// `documents_by_group`, so every plan stays a set of index range scans.
extension SQLiteConnection: IndexScanner {
    package func document(at path: ResourcePath) throws -> StoredDocument? {
        try DocumentRows.fetch(path, in: self)
    }

    package func documentIDs(
        in collection: ResourcePath, bounds: ClosedIDRange, after: String?, descending: Bool, limit: Int
    ) throws -> [String] {
        var query: SQLQuery = "SELECT id FROM documents WHERE collection = \(collection.description)"
        if let lower = bounds.lower { query.append(" AND id >= \(lower)") }
        if let upper = bounds.upper { query.append(" AND id <= \(upper)") }
        if let after { query.append(" AND id \(unsafeSQL: descending ? "<" : ">") \(after)") }
        query.append(" ORDER BY id \(unsafeSQL: descending ? "DESC" : "ASC") LIMIT \(limit)")
        return try fetchAll(query).map { $0[0].stringValue ?? "" }
    }

    package func groupDocuments(
        collectionID: String, parent: ResourcePath, range: KeyRange, after: [UInt8]?, descending: Bool, limit: Int
    ) throws -> [(path: ResourcePath, nameKey: [UInt8])] {
        var query: SQLQuery = "SELECT collection || '/' || id, name_key FROM documents WHERE "
        // Kindless: every collection below the parent. No index orders by name alone, so each page is sorted —
        // kindless queries are the rare recursive deletes.
        query.append(Self.group(collectionID, below: parent))
        query.append(Self.bounds("name_key", range))
        if let after { query.append(descending ? " AND name_key < \(after)" : " AND name_key > \(after)") }
        query.append(" ORDER BY name_key \(unsafeSQL: descending ? "DESC" : "ASC") LIMIT \(limit)")
        return try fetchAll(query).map { row in
            (
                ResourcePath(segments: (row[0].stringValue ?? "").split(separator: "/").map(String.init)),
                row[1].blobValue ?? []
            )
        }
    }

    package func indexRows(
        _ index: IndexTable, range: KeyRange, start: IndexScanStart?, after: IndexRow?, descending: Bool, limit: Int
    ) throws -> [IndexRow] {
        let direction = descending ? "DESC" : "ASC"
        let tieColumn: String
        var query: SQLQuery
        switch index {
        case .field:
            tieColumn = "id"
            query = "SELECT key, id FROM index_entries WHERE "
        case .composite:
            tieColumn = "name_key"
            query = "SELECT key, name_key, path FROM composite_entries WHERE "
        }
        query.append(Self.rows(of: index))
        query.append(Self.bounds("key", range))
        if let start {
            switch (start.tie.map(Self.value), descending) {
            case (let tie?, false): query.append(" AND (key, \(unsafeSQL: tieColumn)) >= (\(start.key), \(tie))")
            case (let tie?, true): query.append(" AND (key, \(unsafeSQL: tieColumn)) <= (\(start.key), \(tie))")
            case (nil, false): query.append(" AND key >= \(start.key)")
            case (nil, true):
                if let past = KeyRange.successor(ofPrefix: start.key) { query.append(" AND key < \(past)") }
            }
        }
        if let after {
            query.append(
                " AND (key, \(unsafeSQL: tieColumn)) \(unsafeSQL: descending ? "<" : ">") (\(after.key), \(Self.value(after.tie)))"
            )
        }
        query.append(
            " ORDER BY key \(unsafeSQL: direction), \(unsafeSQL: tieColumn) \(unsafeSQL: direction) LIMIT \(limit)")
        return try fetchAll(query).map { row in
            let key = row[0].blobValue ?? []
            switch index {
            case .field(let collection, _, _):
                let id = row[1].stringValue ?? ""
                return IndexRow(key: key, tie: .id(id), path: collection.appending(id))
            case .composite:
                return IndexRow(
                    key: key, tie: .nameKey(row[1].blobValue ?? []),
                    path: ResourcePath(segments: (row[2].stringValue ?? "").split(separator: "/").map(String.init)))
            }
        }
    }

    package func pointIDs(
        _ point: IndexPoint, from target: String?, inclusive: Bool, descending: Bool, limit: Int
    ) throws -> [String] {
        var query = Self.point(point)
        if let target {
            let op = descending ? (inclusive ? "<=" : "<") : (inclusive ? ">=" : ">")
            query.append(" AND id \(unsafeSQL: op) \(target)")
        }
        query.append(" ORDER BY id \(unsafeSQL: descending ? "DESC" : "ASC") LIMIT \(limit)")
        return try fetchAll(query).map { $0[0].stringValue ?? "" }
    }

    package func count(_ target: CountTarget, cap: Int64) throws -> Int64 {
        var inner: SQLQuery
        switch target {
        case .collection(let collection):
            inner = "SELECT 1 FROM documents WHERE collection = \(collection.description)"
        case .group(let collectionID, let parent):
            inner = "SELECT 1 FROM documents WHERE "
            inner.append(Self.group(collectionID, below: parent))
            if !collectionID.isEmpty {
                let prefix = IndexKey.encode(segments: parent.segments)
                if !prefix.isEmpty {
                    inner.append(
                        Self.bounds("name_key", KeyRange(lower: prefix, upper: KeyRange.successor(ofPrefix: prefix))))
                }
            }
        case .range(let index, let range):
            inner = "SELECT 1 FROM \(unsafeSQL: Self.table(index)) WHERE "
            inner.append(Self.rows(of: index))
            inner.append(Self.bounds("key", range))
        case .point(let point):
            inner = Self.point(point)
        }
        var query: SQLQuery = "SELECT COUNT(*) FROM ("
        query.append(inner)
        query.append(" LIMIT \(cap))")
        return try fetchOne(query)?[0].int64Value ?? 0
    }

    package func firstCollectionPath(from start: String, inclusive: Bool, below upper: String) throws -> String? {
        let row =
            inclusive
            ? try fetchOne(
                "SELECT collection FROM documents WHERE collection >= \(start) AND collection < \(upper) ORDER BY collection LIMIT 1"
            )
            : try fetchOne(
                "SELECT collection FROM documents WHERE collection > \(start) AND collection < \(upper) ORDER BY collection LIMIT 1"
            )
        return row?[0].stringValue
    }

    /// The condition for documents with `collectionID` (any, when empty, kept to `parent`'s subtree). The primary
    /// key's `collection` column narrows to the subtree: `/` + 1 is `0`, so every collection path below `parent/`
    /// sorts in ["parent/", "parent0").
    private static func group(_ collectionID: String, below parent: ResourcePath) -> SQLQuery {
        guard collectionID.isEmpty else { return "collection_id = \(collectionID)" }
        return parent.segments.isEmpty ? "1" : "collection >= \("\(parent)/") AND collection < \("\(parent)0")"
    }

    private static func bounds(_ column: String, _ range: KeyRange) -> SQLQuery {
        var query: SQLQuery = ""
        if let lower = range.lower { query.append(" AND \(unsafeSQL: column) >= \(lower)") }
        if let upper = range.upper { query.append(" AND \(unsafeSQL: column) < \(upper)") }
        return query
    }

    private static func table(_ index: IndexTable) -> String {
        switch index {
        case .field: "index_entries"
        case .composite: "composite_entries"
        }
    }

    /// The condition that selects one index's rows.
    private static func rows(of index: IndexTable) -> SQLQuery {
        switch index {
        case .field(let collection, let field, let kind):
            "collection = \(collection.description) AND field = \(field) AND kind = \(kind.rawValue)"
        case .composite(let indexID, let scope):
            "index_id = \(indexID) AND scope = \(scope)"
        }
    }

    private static func point(_ point: IndexPoint) -> SQLQuery {
        """
        SELECT id FROM index_entries WHERE collection = \(point.collection.description) AND field = \(point.field)
        AND kind = \(point.kind.rawValue) AND key = \(point.key)
        """
    }

    private static func value(_ tie: IndexTie) -> SQLiteValue {
        switch tie {
        case .id(let id): .text(id)
        case .nameKey(let key): .blob(key)
        }
    }
}
