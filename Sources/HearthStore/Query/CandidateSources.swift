package import HearthCore

/// Counters of the work a query did, for `explain` and the O(result) tests.
package struct QueryStatistics: Sendable, Equatable {
    package var indexEntriesRead = 0
    package var documentsRead = 0
}

/// Document paths in a scan's order: what an index says might match. The executor fetches and checks each.
package protocol CandidateSource {
    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath?

    /// Right after ``next(_:)`` returned a candidate whose stored index key was cut (``IndexKeyCap``): the
    /// candidates that follow it with that same stored key, consumed — a run whose order among itself the index
    /// cannot tell. `nil` when the last candidate's key was whole, or the source reads no index keys.
    mutating func restOfCutRun(_ statistics: inout QueryStatistics) throws -> [ResourcePath]?
}

extension CandidateSource {
    /// Sources that read no index keys never meet a cut one.
    package mutating func restOfCutRun(_ statistics: inout QueryStatistics) throws -> [ResourcePath]? { nil }
}

/// Pages of index rows with a continuation, so a scan reads only as far as the query consumes.
private let firstPage = 32
private let maxPage = 512

/// One collection's documents by ID.
struct NameSource: CandidateSource {
    let scanner: any IndexScanner
    let collection: ResourcePath
    let descending: Bool
    let bounds: ClosedIDRange
    private var buffer: [String] = []
    private var position = 0
    private var exhausted = false
    private var pageSize = firstPage

    init(scanner: any IndexScanner, collection: ResourcePath, descending: Bool, bounds: ClosedIDRange) {
        self.scanner = scanner
        self.collection = collection
        self.descending = descending
        self.bounds = bounds
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        if position == buffer.count {
            guard !exhausted else { return nil }
            let page = try scanner.documentIDs(
                in: collection, bounds: bounds, after: buffer.last, descending: descending, limit: pageSize)
            buffer = page
            position = 0
            exhausted = page.count < pageSize
            pageSize = min(pageSize * 4, maxPage)
            guard !buffer.isEmpty else { return nil }
        }
        defer { position += 1 }
        statistics.indexEntriesRead += 1
        return collection.appending(buffer[position])
    }
}

/// Every document with a collection ID below a parent, by full name.
struct GroupNameSource: CandidateSource {
    let scanner: any IndexScanner
    let collectionID: String
    let parent: ResourcePath
    let range: KeyRange
    let descending: Bool
    private var buffer: [(path: ResourcePath, nameKey: [UInt8])] = []
    private var position = 0
    private var exhausted = false
    private var pageSize = firstPage

    init(scanner: any IndexScanner, collectionID: String, parent: ResourcePath, descending: Bool) {
        self.scanner = scanner
        self.collectionID = collectionID
        self.parent = parent
        range = Self.range(below: parent)
        self.descending = descending
    }

    /// The name keys of every document below `parent`.
    package static func range(below parent: ResourcePath) -> KeyRange {
        let prefix = IndexKey.encode(segments: parent.segments)
        return prefix.isEmpty ? .all : KeyRange(lower: prefix, upper: KeyRange.successor(ofPrefix: prefix))
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        if position == buffer.count {
            guard !exhausted else { return nil }
            let page = try scanner.groupDocuments(
                collectionID: collectionID, parent: parent, range: range, after: buffer.last?.nameKey,
                descending: descending, limit: pageSize)
            buffer = page
            position = 0
            exhausted = page.count < pageSize
            pageSize = min(pageSize * 4, maxPage)
            guard !buffer.isEmpty else { return nil }
        }
        defer { position += 1 }
        statistics.indexEntriesRead += 1
        return buffer[position].path
    }
}

/// Index rows over key ranges in key order, then a tie-breaker: a single-field index or a declared composite
/// index. On an engine that caps keys, the ranges and the start are widened to stored keys (``IndexKeyCap``).
struct KeyOrderSource: CandidateSource {
    let scanner: any IndexScanner
    let table: IndexTable
    let ranges: [KeyRange]
    let descending: Bool
    let start: IndexScanStart?
    private let cap: IndexKeyCap?
    private var rangeIndex = 0
    private var buffer: [IndexRow] = []
    private var position = 0
    private var exhausted = false
    private var pageSize = firstPage
    /// The stored key of the row ``next(_:)`` returned last.
    private var lastKey: [UInt8]?

    init(scanner: any IndexScanner, table: IndexTable, ranges: RangeSet, descending: Bool, start: IndexScanStart?) {
        self.scanner = scanner
        self.table = table
        cap = scanner.indexKeyCap
        let stored = cap.map { $0.widened(ranges.ranges) } ?? ranges.ranges
        self.ranges = descending ? stored.reversed() : stored
        self.descending = descending
        self.start = cap.map { $0.start(start) } ?? start
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        guard let row = try peek() else { return nil }
        position += 1
        lastKey = row.key
        statistics.indexEntriesRead += 1
        return row.path
    }

    mutating func restOfCutRun(_ statistics: inout QueryStatistics) throws -> [ResourcePath]? {
        guard let cap, let key = lastKey, cap.isCut(key) else { return nil }
        var run: [ResourcePath] = []
        while let row = try peek(), row.key == key {
            position += 1
            statistics.indexEntriesRead += 1
            run.append(row.path)
        }
        return run
    }

    /// The next row, reading the next page (or range) when the buffer is used up; `nil` at the end.
    private mutating func peek() throws -> IndexRow? {
        while position == buffer.count {
            if exhausted {
                rangeIndex += 1
                exhausted = false
                buffer = []
                position = 0
                pageSize = firstPage
            }
            guard rangeIndex < ranges.count else { return nil }
            let page = try scanner.indexRows(
                table, range: ranges[rangeIndex], start: start, after: buffer.last, descending: descending,
                limit: pageSize)
            buffer = page
            position = 0
            exhausted = page.count < pageSize
            pageSize = min(pageSize * 4, maxPage)
        }
        return buffer[position]
    }
}
