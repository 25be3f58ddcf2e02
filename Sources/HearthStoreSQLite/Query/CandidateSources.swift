import HearthCore
import HearthSQLite
import HearthStore

/// Counters of the work a query did, for `explain` and the O(result) tests.
struct QueryStatistics: Sendable, Equatable {
    var indexEntriesRead = 0
    var documentsRead = 0
}

/// Document paths in a scan's order: what an index says might match. The executor fetches and checks each.
protocol CandidateSource {
    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath?
}

/// Pages of SQL rows with a continuation, so a scan reads only as far as the query consumes.
private let firstPage = 32
private let maxPage = 512

/// One collection's documents by ID.
struct NameSource: CandidateSource {
    let db: SQLiteConnection
    let collection: ResourcePath
    let descending: Bool
    let bounds: ClosedIDRange
    private var buffer: [String] = []
    private var position = 0
    private var last: String?
    private var exhausted = false
    private var pageSize = firstPage

    init(db: SQLiteConnection, collection: ResourcePath, descending: Bool, bounds: ClosedIDRange) {
        self.db = db
        self.collection = collection
        self.descending = descending
        self.bounds = bounds
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        if position == buffer.count {
            guard !exhausted else { return nil }
            var query: SQLQuery = "SELECT id FROM documents WHERE collection = \(collection.description)"
            if let lower = bounds.lower { query.append(" AND id >= \(lower)") }
            if let upper = bounds.upper { query.append(" AND id <= \(upper)") }
            if let last { query.append(" AND id \(unsafeSQL: descending ? "<" : ">") \(last)") }
            query.append(" ORDER BY id \(unsafeSQL: descending ? "DESC" : "ASC") LIMIT \(pageSize)")
            let rows = try db.fetchAll(query)
            buffer = rows.map { $0[0].stringValue ?? "" }
            position = 0
            exhausted = rows.count < pageSize
            pageSize = min(pageSize * 4, maxPage)
            last = buffer.last
            guard !buffer.isEmpty else { return nil }
        }
        defer { position += 1 }
        statistics.indexEntriesRead += 1
        return collection.appending(buffer[position])
    }
}

/// Every document with a collection ID below a parent, by full name (`documents_by_group`).
struct GroupNameSource: CandidateSource {
    let db: SQLiteConnection
    let collectionID: String
    let range: KeyRange
    let descending: Bool
    /// For a kindless scan, the condition that keeps it to the parent's subtree.
    private let kindless: SQLQuery
    private var buffer: [(String, [UInt8])] = []
    private var position = 0
    private var last: [UInt8]?
    private var exhausted = false
    private var pageSize = firstPage

    init(db: SQLiteConnection, collectionID: String, parent: ResourcePath, descending: Bool) {
        self.db = db
        self.collectionID = collectionID
        let prefix = IndexKey.encode(segments: parent.segments)
        range = prefix.isEmpty ? .all : KeyRange(lower: prefix, upper: KeyRange.successor(ofPrefix: prefix))
        self.descending = descending
        kindless = Self.documents(below: parent)
    }

    /// The condition on `documents` that holds for every document below `parent`, whatever its collection. The
    /// primary key's `collection` column narrows to the subtree: `/` + 1 is `0`, so every collection path below
    /// `parent/` sorts in ["parent/", "parent0").
    static func documents(below parent: ResourcePath) -> SQLQuery {
        parent.segments.isEmpty ? "1" : "collection >= \("\(parent)/") AND collection < \("\(parent)0")"
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        if position == buffer.count {
            guard !exhausted else { return nil }
            var query: SQLQuery = "SELECT collection || '/' || id, name_key FROM documents WHERE "
            if collectionID.isEmpty {
                // Kindless: every collection below the parent. No index orders by name alone, so each page is
                // sorted — kindless queries are the rare recursive deletes.
                query.append(kindless)
            } else {
                query.append("collection_id = \(collectionID)")
            }
            query.append(Self.bounds("name_key", range))
            if let last { query.append(descending ? " AND name_key < \(last)" : " AND name_key > \(last)") }
            query.append(" ORDER BY name_key \(unsafeSQL: descending ? "DESC" : "ASC") LIMIT \(pageSize)")
            let rows = try db.fetchAll(query)
            buffer = rows.map { ($0[0].stringValue ?? "", $0[1].blobValue ?? []) }
            position = 0
            exhausted = rows.count < pageSize
            pageSize = min(pageSize * 4, maxPage)
            last = buffer.last?.1
            guard !buffer.isEmpty else { return nil }
        }
        defer { position += 1 }
        statistics.indexEntriesRead += 1
        return ResourcePath(segments: buffer[position].0.split(separator: "/").map(String.init))
    }

    static func bounds(_ column: String, _ range: KeyRange) -> SQLQuery {
        var query: SQLQuery = ""
        if let lower = range.lower { query.append(" AND \(unsafeSQL: column) >= \(lower)") }
        if let upper = range.upper { query.append(" AND \(unsafeSQL: column) < \(upper)") }
        return query
    }
}

/// Index rows over key ranges in key order, then a tie-breaker: a single-field index (`index_entries`) or a
/// declared composite index (`composite_entries`).
struct KeyOrderSource: CandidateSource {
    enum Table {
        case field(collection: ResourcePath, field: String, kind: IndexEntry.Kind)
        case composite(indexID: Int64, scope: String)
    }

    /// Where a cursor puts the scan's start: a key (prefix) and, for a cursor that names a document, its
    /// tie-breaker. Rows before it in scan order are skipped by the index seek; the matcher settles the edge.
    struct Start {
        var key: [UInt8]
        var tie: SQLiteValue?
    }

    let db: SQLiteConnection
    let table: Table
    let ranges: [KeyRange]
    let descending: Bool
    let start: Start?
    private var rangeIndex = 0
    private var buffer: [(key: [UInt8], tie: SQLiteValue, path: ResourcePath)] = []
    private var position = 0
    private var exhausted = false
    private var pageSize = firstPage

    init(db: SQLiteConnection, table: Table, ranges: RangeSet, descending: Bool, start: Start? = nil) {
        self.db = db
        self.table = table
        self.ranges = descending ? ranges.ranges.reversed() : ranges.ranges
        self.descending = descending
        self.start = start
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        while position == buffer.count {
            if exhausted {
                rangeIndex += 1
                exhausted = false
                buffer = []
                position = 0
                pageSize = firstPage
            }
            guard rangeIndex < ranges.count else { return nil }
            try fetchPage()
        }
        defer { position += 1 }
        statistics.indexEntriesRead += 1
        return buffer[position].path
    }

    private mutating func fetchPage() throws {
        let range = ranges[rangeIndex]
        let direction = descending ? "DESC" : "ASC"
        var query: SQLQuery
        let tieColumn: String
        switch table {
        case .field(let collection, let field, let kind):
            tieColumn = "id"
            query = """
                SELECT key, id FROM index_entries
                WHERE collection = \(collection.description) AND field = \(field) AND kind = \(kind.rawValue)
                """
        case .composite(let indexID, let scope):
            tieColumn = "name_key"
            query = "SELECT key, name_key, path FROM composite_entries WHERE index_id = \(indexID) AND scope = \(scope)"
        }
        query.append(GroupNameSource.bounds("key", range))
        if let start {
            switch (start.tie, descending) {
            case (let tie?, false): query.append(" AND (key, \(unsafeSQL: tieColumn)) >= (\(start.key), \(tie))")
            case (let tie?, true): query.append(" AND (key, \(unsafeSQL: tieColumn)) <= (\(start.key), \(tie))")
            case (nil, false): query.append(" AND key >= \(start.key)")
            case (nil, true):
                if let past = KeyRange.successor(ofPrefix: start.key) { query.append(" AND key < \(past)") }
            }
        }
        if let last = buffer.last {
            query.append(
                " AND (key, \(unsafeSQL: tieColumn)) \(unsafeSQL: descending ? "<" : ">") (\(last.key), \(last.tie))")
        }
        query.append(
            " ORDER BY key \(unsafeSQL: direction), \(unsafeSQL: tieColumn) \(unsafeSQL: direction) LIMIT \(pageSize)")
        let rows = try db.fetchAll(query)
        buffer = rows.map { row in
            let key = row[0].blobValue ?? []
            switch table {
            case .field(let collection, _, _):
                return (key, row[1], collection.appending(row[1].stringValue ?? ""))
            case .composite:
                return (
                    key, row[1],
                    ResourcePath(segments: (row[2].stringValue ?? "").split(separator: "/").map(String.init))
                )
            }
        }
        position = 0
        exhausted = rows.count < pageSize
        pageSize = min(pageSize * 4, maxPage)
    }
}
