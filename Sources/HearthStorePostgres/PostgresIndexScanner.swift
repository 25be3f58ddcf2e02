import HearthCore
internal import HearthPostgres
import HearthStore

/// PostgreSQL's answers to the engine-neutral scans, on one connection (inside a query's read-only snapshot): each
/// one statement that a B-tree answers as a range — `documents`' primary key, `documents_by_group`, and the primary
/// keys of `index_entries` and `composite_entries` — seeking past the previous page's last row, so every plan the
/// planner makes stays a set of index range scans (PostgresQueryPlanTests checks them with `EXPLAIN`).
///
/// A wrapper rather than a conformance of `PostgresConnection` itself: neither the type nor the protocol is this
/// module's.
struct PostgresIndexScanner: IndexScanner {
    let db: PostgresConnection
    /// Hears every statement before it runs (how `explain(_:)` finds the statements a query runs).
    var observer: ((String, [PostgresParameter]) -> Void)? = nil
    private let prefetch = Prefetch()

    /// Documents the scans named, read ahead in batches. The executor asks for candidates one at a time, in the
    /// order the scans returned them; a round trip each would dominate a query, so a miss reads that document and
    /// the next ones its scan returned at once (at most ``batch``, bounding both memory and reads wasted when the
    /// query stops early). The snapshot makes the early reads the same as later ones.
    private final class Prefetch {
        static let batch = 64
        /// Paths the scans returned that no read has covered yet, in scan order.
        var pending: [ResourcePath] = []
        /// Documents read ahead and not yet asked for.
        var read: [ResourcePath: StoredDocument?] = [:]
    }

    init(db: PostgresConnection) {
        self.db = db
    }

    func document(at path: ResourcePath) throws -> StoredDocument? {
        if let early = prefetch.read.removeValue(forKey: path) { return early }
        guard let position = prefetch.pending.firstIndex(of: path) else {
            let (sql, parameters) = PostgresDocumentRows.fetchStatement(path)
            observer?(sql, parameters)
            return try PostgresDocumentRows.fetch(path, in: db)
        }
        // Candidates before it were skipped by the executor (out of the query's scope): never asked for.
        let end = min(position + Prefetch.batch, prefetch.pending.count)
        let batch = prefetch.pending[position..<end]
        defer { prefetch.pending.removeSubrange(0..<end) }
        let (sql, parameters) = PostgresDocumentRows.fetchStatement(batch, locking: nil)
        try PostgresDocumentRows.decode(run(sql, parameters, binary: true), of: batch, into: &prefetch.read)
        return prefetch.read.removeValue(forKey: path) ?? nil
    }

    /// Notes the documents a scan page returned, for ``document(at:)`` to read ahead.
    private func expect(_ paths: some Sequence<ResourcePath>) {
        prefetch.pending.append(contentsOf: paths)
    }

    /// Runs one of the scans' statements, telling the observer first.
    private func run(_ sql: String, _ parameters: [PostgresParameter], binary: Bool = false) throws -> PostgresRows {
        observer?(sql, parameters)
        return try db.query(sql, parameters, binaryResults: binary)
    }

    func documentIDs(
        in collection: ResourcePath, bounds: ClosedIDRange, after: String?, descending: Bool, limit: Int
    ) throws -> [String] {
        var sql = PostgresStatement("SELECT id FROM documents WHERE collection = ", .text(collection.description))
        if let lower = bounds.lower { sql.append(" AND id >= ", .text(lower)) }
        if let upper = bounds.upper { sql.append(" AND id <= ", .text(upper)) }
        if let after { sql.append(descending ? " AND id < " : " AND id > ", .text(after)) }
        sql.append(" ORDER BY id \(descending ? "DESC" : "ASC") LIMIT ", .int(Int64(limit)))
        let ids = try run(sql.text, sql.parameters).rows.map { try $0.string(0) ?? "" }
        expect(ids.lazy.map { collection.appending($0) })
        return ids
    }

    func groupDocuments(
        collectionID: String, parent: ResourcePath, range: KeyRange, after: [UInt8]?, descending: Bool, limit: Int
    ) throws -> [(path: ResourcePath, nameKey: [UInt8])] {
        var sql = PostgresStatement("SELECT collection, id, name_key FROM documents WHERE ")
        // Kindless: every collection below the parent. No index orders by name alone, so each page is sorted —
        // kindless queries are the rare recursive deletes, as on SQLite.
        Self.group(collectionID, below: parent, into: &sql)
        Self.bounds("name_key", range, into: &sql)
        if let after { sql.append(descending ? " AND name_key < " : " AND name_key > ", .binary(after), "::bytea") }
        sql.append(" ORDER BY name_key \(descending ? "DESC" : "ASC") LIMIT ", .int(Int64(limit)))
        let page = try run(sql.text, sql.parameters, binary: true).rows.map { row in
            let collection = try row.string(0) ?? ""
            let path = ResourcePath(
                segments: collection.split(separator: "/").map(String.init) + [try row.string(1) ?? ""])
            return (path: path, nameKey: try row.bytes(2) ?? [])
        }
        expect(page.lazy.map(\.path))
        return page
    }

    func indexRows(
        _ index: IndexTable, range: KeyRange, start: IndexScanStart?, after: IndexRow?, descending: Bool, limit: Int
    ) throws -> [IndexRow] {
        let direction = descending ? "DESC" : "ASC"
        let tieColumn: String
        var sql: PostgresStatement
        switch index {
        case .field:
            tieColumn = "id"
            sql = PostgresStatement("SELECT key, id FROM index_entries WHERE ")
        case .composite:
            tieColumn = "name_key"
            sql = PostgresStatement("SELECT key, name_key, path FROM composite_entries WHERE ")
        }
        Self.rows(of: index, into: &sql)
        Self.bounds("key", range, into: &sql)
        if let start {
            switch (start.tie.map(Self.parameter), descending) {
            case (let tie?, false):
                sql.append(" AND (key, \(tieColumn)) >= (", .binary(start.key), "::bytea, ")
                sql.append("", tie, ")")
            case (let tie?, true):
                sql.append(" AND (key, \(tieColumn)) <= (", .binary(start.key), "::bytea, ")
                sql.append("", tie, ")")
            case (nil, false):
                sql.append(" AND key >= ", .binary(start.key), "::bytea")
            case (nil, true):
                if let past = KeyRange.successor(ofPrefix: start.key) {
                    sql.append(" AND key < ", .binary(past), "::bytea")
                }
            }
        }
        if let after {
            sql.append(" AND (key, \(tieColumn)) \(descending ? "<" : ">") (", .binary(after.key), "::bytea, ")
            sql.append("", Self.parameter(after.tie), ")")
        }
        sql.append(" ORDER BY key \(direction), \(tieColumn) \(direction) LIMIT ", .int(Int64(limit)))
        let page = try run(sql.text, sql.parameters, binary: true).rows.map { row in
            let key = try row.bytes(0) ?? []
            switch index {
            case .field(let collection, _, _):
                let id = try row.string(1) ?? ""
                return IndexRow(key: key, tie: .id(id), path: collection.appending(id))
            case .composite:
                return IndexRow(
                    key: key, tie: .nameKey(try row.bytes(1) ?? []),
                    path: ResourcePath(segments: (try row.string(2) ?? "").split(separator: "/").map(String.init)))
            }
        }
        expect(page.lazy.map(\.path))
        return page
    }

    func pointIDs(
        _ point: IndexPoint, from target: String?, inclusive: Bool, descending: Bool, limit: Int
    ) throws -> [String] {
        var sql = PostgresStatement("")
        Self.point(point, into: &sql)
        if let target {
            let op = descending ? (inclusive ? "<=" : "<") : (inclusive ? ">=" : ">")
            sql.append(" AND id \(op) ", .text(target))
        }
        sql.append(" ORDER BY id \(descending ? "DESC" : "ASC") LIMIT ", .int(Int64(limit)))
        let ids = try run(sql.text, sql.parameters).rows.map { try $0.string(0) ?? "" }
        expect(ids.lazy.map { point.collection.appending($0) })
        return ids
    }

    func count(_ target: CountTarget, cap: Int64) throws -> Int64 {
        let sql = Self.countStatement(target, cap: cap)
        return try run(sql.text, sql.parameters)[0].int(0) ?? 0
    }

    /// Keys are stored cut to ``PostgresIndexRows/keyCap``.
    var indexKeyCap: IndexKeyCap? { PostgresIndexRows.keyCap }

    /// The count and, in the same scan, whether a counted row's key is cut.
    func countUncut(_ target: CountTarget, cap: Int64) throws -> Int64? {
        let sql = Self.countStatement(target, cap: cap, checkingCutKeys: true)
        let row = try run(sql.text, sql.parameters)[0]
        return try row.bool(1) == true ? nil : try row.int(0) ?? 0
    }

    func firstCollectionPath(from start: String, inclusive: Bool, below upper: String) throws -> String? {
        let rows = try run(
            "SELECT collection FROM documents WHERE collection \(inclusive ? ">=" : ">") $1 AND collection < $2"
                + " ORDER BY collection LIMIT 1", [.text(start), .text(upper)])
        return rows.count == 0 ? nil : try rows[0].string(0)
    }

    // MARK: - Statements

    /// The statement ``count(_:cap:)`` runs: the covered rows, read no further than `cap`; with
    /// `checkingCutKeys`, a second column tells whether an index key among them is cut (``countUncut(_:cap:)``).
    static func countStatement(_ target: CountTarget, cap: Int64, checkingCutKeys: Bool = false) -> PostgresStatement {
        let checksKeys: Bool
        switch target {
        case .collection, .group: checksKeys = false
        case .range, .point: checksKeys = checkingCutKeys
        }
        var sql = PostgresStatement("SELECT count(*)")
        if checksKeys {
            sql.append(
                ", coalesce(bool_or(octet_length(key) >= ", .int(Int64(PostgresIndexRows.keyCap.length)),
                "::int4), false)")
        } else if checkingCutKeys {
            sql.append(", false")
        }
        sql.append(checksKeys ? " FROM (SELECT key " : " FROM (SELECT 1 ")
        switch target {
        case .collection(let collection):
            sql.append("FROM documents WHERE collection = ", .text(collection.description))
        case .group(let collectionID, let parent):
            sql.append("FROM documents WHERE ")
            group(collectionID, below: parent, into: &sql)
            if !collectionID.isEmpty {
                let prefix = IndexKey.encode(segments: parent.segments)
                if !prefix.isEmpty {
                    bounds("name_key", KeyRange(lower: prefix, upper: KeyRange.successor(ofPrefix: prefix)), into: &sql)
                }
            }
        case .range(let index, let range):
            sql.append("FROM \(table(index)) WHERE ")
            rows(of: index, into: &sql)
            bounds("key", range, into: &sql)
        case .point(let point):
            Self.point(point, columns: "", into: &sql)
        }
        sql.append(" LIMIT ", .int(cap), ") AS covered")
        return sql
    }

    /// The condition for documents with `collectionID` (any, when empty, kept to `parent`'s subtree). The primary
    /// key's `collection` column narrows to the subtree: `/` + 1 is `0`, so every collection path below `parent/`
    /// sorts in ["parent/", "parent0").
    private static func group(_ collectionID: String, below parent: ResourcePath, into sql: inout PostgresStatement) {
        if !collectionID.isEmpty {
            sql.append("collection_id = ", .text(collectionID))
        } else if parent.segments.isEmpty {
            sql.append("true")
        } else {
            sql.append("collection >= ", .text("\(parent)/"))
            sql.append(" AND collection < ", .text("\(parent)0"))
        }
    }

    private static func bounds(_ column: String, _ range: KeyRange, into sql: inout PostgresStatement) {
        if let lower = range.lower { sql.append(" AND \(column) >= ", .binary(lower), "::bytea") }
        if let upper = range.upper { sql.append(" AND \(column) < ", .binary(upper), "::bytea") }
    }

    private static func table(_ index: IndexTable) -> String {
        switch index {
        case .field: "index_entries"
        case .composite: "composite_entries"
        }
    }

    /// The condition that selects one index's rows: the leading columns of its primary key.
    private static func rows(of index: IndexTable, into sql: inout PostgresStatement) {
        switch index {
        case .field(let collection, let field, let kind):
            sql.append("collection = ", .text(collection.description))
            sql.append(" AND field = ", .text(field))
            sql.append(" AND kind = ", .int(Int64(kind.rawValue)), "::int4")
        case .composite(let indexID, let scope):
            sql.append("index_id = ", .int(indexID), "::int8")
            sql.append(" AND scope = ", .text(scope))
        }
    }

    /// The rows of one key of one field's index: `SELECT id FROM …` (or `columns` in place of `SELECT id`).
    private static func point(
        _ point: IndexPoint, columns: String = "SELECT id ", into sql: inout PostgresStatement
    ) {
        sql.append(columns + "FROM index_entries WHERE collection = ", .text(point.collection.description))
        sql.append(" AND field = ", .text(point.field))
        sql.append(" AND kind = ", .int(Int64(point.kind.rawValue)), "::int4")
        sql.append(" AND key = ", .binary(point.key), "::bytea")
    }

    private static func parameter(_ tie: IndexTie) -> PostgresStatement.Bound {
        switch tie {
        case .id(let id): PostgresStatement.Bound(.text(id), cast: "::text")
        case .nameKey(let key): PostgresStatement.Bound(.binary(key), cast: "::bytea")
        }
    }
}

/// SQL text with its `$n` parameters, built in pieces so each value is bound out of band, never spliced in.
struct PostgresStatement {
    /// A value with the cast its placeholder needs.
    struct Bound {
        var value: PostgresParameter
        var cast: String

        init(_ value: PostgresParameter, cast: String) {
            self.value = value
            self.cast = cast
        }
    }

    private(set) var text: String
    private(set) var parameters: [PostgresParameter] = []

    init(_ text: String) {
        self.text = text
    }

    init(_ text: String, _ value: PostgresParameter, _ suffix: String = "") {
        self.text = ""
        append(text, value, suffix)
    }

    /// Appends `text`, then a placeholder for `value`, then `suffix` (a cast, a closing parenthesis).
    mutating func append(_ text: String, _ value: PostgresParameter, _ suffix: String = "") {
        parameters.append(value)
        self.text += text + "$\(parameters.count)" + suffix
    }

    /// Appends `text`, then a placeholder for `bound` with its cast, then `suffix`.
    mutating func append(_ text: String, _ bound: Bound, _ suffix: String = "") {
        append(text, bound.value, bound.cast + suffix)
    }

    /// Appends plain SQL text.
    mutating func append(_ text: String) {
        self.text += text
    }
}
