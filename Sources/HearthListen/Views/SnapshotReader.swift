import HearthCore
import HearthStore

/// Why results could not be read at a change-log position.
enum SnapshotFailure: Error {
    /// The change log no longer reaches back to the position (pruned), or the position is not one this log issued.
    case notCovered
    /// The store refused (a query needing a composite index, an I/O error).
    case store(HearthError)

    /// The error to report to a client.
    var hearthError: HearthError {
        switch self {
        case .notCovered: return HearthError(.internal, "The change log does not cover the hub's own position.")
        case .store(let error): return error
        }
    }
}

/// The results of a target as they stood at a change-log position.
struct TargetState: Sendable {
    /// Matching documents: in query order for queries, in request order for document targets.
    var documents: [MatchedDocument]
    /// Whether `documents` holds every match (always, except for limit queries cut at their capacity).
    var exhaustive: Bool
    /// Per path the change log touched around the position: whether the document existed at the position. (A path
    /// it does not name was unchanged throughout.)
    var existence: [ResourcePath: Bool]
}

/// Reads a target's results as of an exact change-log position, although the store only answers "now".
///
/// The store's answer reflects some commit at or after the position. The change-log records after the position,
/// read *after* the results, cover every commit the results can reflect. A document those records touch is taken
/// as it was before the first of them (its `before`); every other document is unchanged since the position. For a
/// limit query the store is asked for more rows than kept (a slack at least the number of touched documents), so
/// documents that touched ones displaced are still among the rows read.
struct SnapshotReader: Sendable {
    let source: any ListenSource
    let pageSize: Int

    /// Change-log records after `base`. With `requireCoverage`, fails unless the log still holds every record after
    /// `base` (``ListenSource/covers(after:)``); `maxRecords` bounds how many are read (beyond it the position counts as not covered).
    func records(
        after base: Int64, requireCoverage: Bool, maxRecords: Int? = nil
    ) throws(SnapshotFailure) -> [ChangeRecord] {
        if requireCoverage {
            let covered: Bool
            do {
                covered = try source.covers(after: base)
            } catch {
                throw .store(error)
            }
            guard covered else { throw .notCovered }
        }
        var records: [ChangeRecord] = []
        var cursor = base
        while true {
            let page: [ChangeRecord]
            do {
                page = try source.changes(after: cursor, limit: pageSize)
            } catch {
                throw .store(error)
            }
            records += page
            if let maxRecords, records.count > maxRecords { throw .notCovered }
            guard page.count == pageSize, let last = page.last else { return records }
            cursor = last.sequence
        }
    }

    /// A query's results at each of `bases` (ascending), from one read. `capacity` bounds a limit query's kept
    /// documents (its visible limit plus spares); `nil` keeps every match.
    func query(
        _ query: StructuredQuery, capacity: Int?, at bases: [Int64], requireCoverage: Bool, maxRecords: Int? = nil
    ) throws(SnapshotFailure) -> [TargetState] {
        let orderBy = query.normalizedOrderBy
        var slack = 32
        for attempt in 0..<4 {
            var read = query
            read.limit = attempt == 3 ? nil : capacity.map { $0 + slack }
            let rows: [StoredDocument]
            do {
                rows = try source.runQuery(read)
            } catch {
                throw .store(error)
            }
            let log = try records(after: bases[0], requireCoverage: requireCoverage, maxRecords: maxRecords)
            let exhaustive = read.limit.map { rows.count < $0 } ?? true
            let touched = Set(log.lazy.filter { query.contains(path: $0.path) }.map(\.path))
            if !exhaustive && touched.count > slack {
                slack = touched.count + 32
                continue
            }
            let decoded = rows.compactMap(MatchedDocument.init)
            let boundary = exhaustive ? nil : decoded.last
            return bases.map { base in
                state(
                    of: query, orderBy: orderBy, rows: decoded, boundary: boundary, exhaustive: exhaustive,
                    capacity: capacity, log: log, base: base)
            }
        }
        throw .store(
            HearthError(.aborted, "The query's results changed too fast to be read consistently; add the target again.")
        )
    }

    /// Documents' states at each of `bases` (ascending), from one read.
    func documents(
        _ paths: [ResourcePath], at bases: [Int64], requireCoverage: Bool, maxRecords: Int? = nil
    ) throws(SnapshotFailure) -> [TargetState] {
        let rows: [StoredDocument?]
        do {
            rows = try source.documents(at: paths)
        } catch {
            throw .store(error)
        }
        let log = try records(after: bases[0], requireCoverage: requireCoverage, maxRecords: maxRecords)
        let wanted = Set(paths)
        return bases.map { base in
            let undone = Self.firstBefore(in: log, after: base, where: { wanted.contains($0) })
            let documents = zip(paths, rows).compactMap { path, row -> MatchedDocument? in
                let stored: StoredDocument? = undone[path] ?? row
                return stored.flatMap(MatchedDocument.init)
            }
            return TargetState(
                documents: documents, exhaustive: true,
                existence: Self.existence(in: log, at: base, where: { wanted.contains($0) }))
        }
    }

    private func state(
        of query: StructuredQuery, orderBy: [QueryOrder], rows: [MatchedDocument], boundary: MatchedDocument?,
        exhaustive: Bool, capacity: Int?, log: [ChangeRecord], base: Int64
    ) -> TargetState {
        let undone = Self.firstBefore(in: log, after: base, where: { query.contains(path: $0) })
        var documents = rows.filter { undone[$0.path] == nil }
        for case let (_, before?) in undone {
            guard let document = MatchedDocument(before),
                QueryMatcher.matches(path: document.path, fields: document.fields, query: query)
            else { continue }
            // Beyond the last row read, unread documents may come first: leave it out.
            if let boundary, MatchedDocument.compare(document, boundary, orderBy) > 0 { continue }
            documents.append(document)
        }
        documents.sort { MatchedDocument.compare($0, $1, orderBy) < 0 }
        var complete = exhaustive
        if let capacity, documents.count > capacity {
            documents.removeLast(documents.count - capacity)
            complete = false
        }
        return TargetState(
            documents: documents, exhaustive: complete,
            existence: Self.existence(in: log, at: base, where: { query.contains(path: $0) }))
    }

    /// For each path the records after `base` touch: its state before the first of them (`nil` if it did not exist).
    static func firstBefore(
        in log: [ChangeRecord], after base: Int64, where include: (ResourcePath) -> Bool
    ) -> [ResourcePath: StoredDocument?] {
        var states: [ResourcePath: StoredDocument?] = [:]
        for record in log where record.sequence > base && states[record.path] == nil && include(record.path) {
            states[record.path] = .some(record.before)
        }
        return states
    }

    /// For each path the log touches: whether the document existed at `base` (after the last record up to `base`,
    /// else before the first one after it).
    private static func existence(
        in log: [ChangeRecord], at base: Int64, where include: (ResourcePath) -> Bool
    ) -> [ResourcePath: Bool] {
        var exists: [ResourcePath: Bool] = [:]
        var pastBase: Set<ResourcePath> = []
        for record in log where include(record.path) {
            if record.sequence <= base {
                exists[record.path] = record.after != nil
            } else if pastBase.insert(record.path).inserted {
                exists[record.path] = record.before != nil
            }
        }
        return exists
    }
}
