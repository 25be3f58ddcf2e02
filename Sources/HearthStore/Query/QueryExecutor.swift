package import HearthCore

/// Runs a planned query on one read connection: pulls candidates from each AND-group's index scan, checks
/// every candidate document against the whole query (the index narrows, the matcher decides), merges
/// OR-groups in query order without duplicates, then applies offset and limit.
package struct QueryExecutor {
    let scanner: any IndexScanner
    /// The normalized query.
    let query: StructuredQuery
    let plans: [ConjunctPlan]
    /// Fields a document must have to count as a match, before offset and limit (an aggregation's fields).
    var requiredFields: [FieldPath] = []
    package var statistics = QueryStatistics()
    /// The bytes of documents the results may hold; past it `run` throws (or, with `truncates`, stops early).
    package var budget = ResultBudget(limit: .max)
    /// Whether a run past the budget returns the results so far (a listing's page) instead of throwing.
    package var truncates = false
    /// Whether the last run stopped at the budget.
    package private(set) var truncated = false

    /// A document that matched, with its decoded fields (for ordering and aggregation).
    package struct Match {
        package var document: StoredDocument
        package var fields: [String: Value]
    }

    package init(
        scanner: any IndexScanner, query: StructuredQuery, plans: [ConjunctPlan], requiredFields: [FieldPath] = []
    ) {
        self.scanner = scanner
        self.query = query
        self.plans = plans
        self.requiredFields = requiredFields
    }

    /// The results, in order.
    package mutating func run() throws -> [Match] {
        if plans.contains(where: { !$0.scan.isInQueryOrder }) { return try runUnordered() }
        var streams = try plans.map {
            try MatchStream(scanner: scanner, query: query, plan: $0, requiredFields: requiredFields)
        }
        var heads: [Match?] = []
        for index in streams.indices { heads.append(try streams[index].next(&statistics)) }
        var results: [Match] = []
        var emitted = Set<ResourcePath>()
        var skipped = 0
        let limit = query.limit ?? Int.max
        while results.count < limit {
            // The next match in query order among the stream heads.
            var best: Int?
            for (index, head) in heads.enumerated() {
                guard let head else { continue }
                if let current = best, let currentHead = heads[current],
                    QueryMatcher.compare(
                        (head.document.path, head.fields), (currentHead.document.path, currentHead.fields),
                        orderBy: query.orderBy) >= 0
                {
                    continue
                }
                best = index
            }
            guard let chosen = best, let match = heads[chosen] else { break }
            heads[chosen] = try streams[chosen].next(&statistics)
            guard emitted.insert(match.document.path).inserted else { continue }
            if skipped < query.offset {
                skipped += 1
                continue
            }
            guard try admit(match) else { break }
            results.append(match)
        }
        return results
    }

    /// The results of plans whose scans do not run in query order (development mode without an index): every
    /// match of every group, once each, sorted, then offset and limit — the same answer the index would give.
    private mutating func runUnordered() throws -> [Match] {
        var matches: [Match] = []
        var seen = Set<ResourcePath>()
        for plan in plans {
            var stream = try MatchStream(scanner: scanner, query: query, plan: plan, requiredFields: requiredFields)
            while let match = try stream.next(&statistics) {
                if seen.insert(match.document.path).inserted { matches.append(match) }
            }
        }
        matches.sort {
            QueryMatcher.compare(($0.document.path, $0.fields), ($1.document.path, $1.fields), orderBy: query.orderBy)
                < 0
        }
        var results: [Match] = []
        for match in matches.dropFirst(query.offset).prefix(query.limit ?? Int.max) {
            guard try admit(match) else { break }
            results.append(match)
        }
        return results
    }

    /// Counts a result against the budget: `false` when a truncating run must stop here.
    private mutating func admit(_ match: Match) throws(HearthError) -> Bool {
        guard budget.admits(match.document) else {
            guard truncates else { throw budget.exceeded }
            truncated = true
            return false
        }
        return true
    }

    /// How many documents match, counting index entries alone when the plan is exact (and no key it covers was cut,
    /// see ``IndexKeyCap``).
    package mutating func count(upTo: Int64?) throws -> Int64 {
        if plans.count == 1, plans[0].exact, requiredFields.isEmpty, query.offset == 0, query.limit == nil,
            let total = try IndexCount(scanner: scanner, query: query).count(plans[0].scan, upTo: upTo, &statistics)
        {
            return total
        }
        var limited = self
        if let upTo {
            limited = QueryExecutor(
                scanner: scanner, query: Self.capped(query, upTo), plans: plans, requiredFields: requiredFields)
        }
        let matches = try limited.run()
        statistics = limited.statistics
        return Int64(matches.count)
    }

    private static func capped(_ query: StructuredQuery, _ upTo: Int64) -> StructuredQuery {
        var capped = query
        let cap = Int(clamping: upTo)
        capped.limit = capped.limit.map { min($0, cap) } ?? cap
        return capped
    }
}

/// One AND-group's matches in query order.
private struct MatchStream {
    let scanner: any IndexScanner
    let query: StructuredQuery
    let requiredFields: [FieldPath]
    private var source: any CandidateSource
    private var finished = false
    /// Whether candidates come in query order, so the end cursor ends the scan (not so for an unindexed scan).
    private let inQueryOrder: Bool
    /// A run of candidates the index left unordered (a cut key's), fetched and sorted, still to hand out (the
    /// next one last).
    private var sortedRun: [(ResourcePath, StoredDocument, [String: Value])] = []

    init(scanner: any IndexScanner, query: StructuredQuery, plan: ConjunctPlan, requiredFields: [FieldPath]) throws {
        self.scanner = scanner
        self.query = query
        self.requiredFields = requiredFields
        let collection = query.parent.appending(query.collectionID)
        switch plan.scan {
        case .names(let descending, var bounds):
            // A cursor on __name__ narrows the ID range from the side the scan starts on.
            if let cursor = query.startAt, let id = Self.cursorID(cursor.values.first, in: collection) {
                if descending {
                    if bounds.upper.map({ Value.compareBytes(id.utf8, $0.utf8) < 0 }) ?? true { bounds.upper = id }
                } else if bounds.lower.map({ Value.compareBytes(id.utf8, $0.utf8) > 0 }) ?? true {
                    bounds.lower = id
                }
            }
            source = NameSource(scanner: scanner, collection: collection, descending: descending, bounds: bounds)
        case .groupNames(let descending):
            source = GroupNameSource(
                scanner: scanner, collectionID: query.collectionID, parent: query.parent, descending: descending)
        case .field(let name, let kind, let ranges, let descending):
            var start: IndexScanStart?
            if kind == .value, let cursor = query.startAt, let first = cursor.values.first {
                start = .init(
                    key: IndexKey.encode(first),
                    tie: Self.cursorID(cursor.values.dropFirst().first, in: collection).map(IndexTie.id))
            }
            source = KeyOrderSource(
                scanner: scanner, table: .field(collection: collection, field: name, kind: kind), ranges: ranges,
                descending: descending, start: start)
        case .composite(let indexID, let scope, let prefix, let ranges, let descending, let definition):
            source = KeyOrderSource(
                scanner: scanner, table: .composite(indexID: indexID, scope: scope), ranges: ranges,
                descending: descending,
                start: Self.compositeStart(query: query, prefix: prefix, definition: definition))
        case .ids(let plan, let descending):
            source = IDSource(scanner: scanner, collection: collection, plan: plan, descending: descending)
        case .documents(let paths):
            source = try LookupSource(scanner: scanner, query: query, paths: paths)
        case .unindexed:
            source =
                query.allDescendants
                ? GroupNameSource(
                    scanner: scanner, collectionID: query.collectionID, parent: query.parent, descending: false)
                : NameSource(scanner: scanner, collection: collection, descending: false, bounds: ClosedIDRange())
        }
        inQueryOrder = plan.scan.isInQueryOrder
    }

    /// The ID of a `__name__` cursor value naming a document of `collection`.
    private static func cursorID(_ value: Value?, in collection: ResourcePath) -> String? {
        guard case .reference(let name)? = value else { return nil }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 5 else { return nil }
        let path = ResourcePath(segments: parts.dropFirst(5).map(String.init))
        return path.parent == collection ? path.lastSegment : nil
    }

    /// A composite index key for the start cursor: the equality prefix, then each cursor value encoded as its
    /// index field is, then (when the cursor names a document) the name tie-breaker.
    private static func compositeStart(
        query: StructuredQuery, prefix: [UInt8], definition: IndexDefinition
    )
        -> IndexScanStart?
    {
        guard let cursor = query.startAt, !cursor.values.isEmpty else { return nil }
        let orderFields = query.orderBy.dropLast()
        let suffix = definition.fields.suffix(orderFields.count)
        var key = prefix
        for (value, field) in zip(cursor.values, suffix) {
            let encoded = IndexKey.encode(value)
            key += field.mode == .descending ? encoded.map { ~$0 } : encoded
        }
        var tie: IndexTie?
        if cursor.values.count > orderFields.count, case .reference(let name) = cursor.values[orderFields.count] {
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count > 5 {
                tie = .nameKey(definition.nameKey(of: ResourcePath(segments: parts.dropFirst(5).map(String.init))))
            }
        }
        return .init(key: key, tie: tie)
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> QueryExecutor.Match? {
        while !finished, let (path, document, fields) = try nextCandidate(&statistics) {
            if inQueryOrder, let end = query.endAt,
                QueryMatcher.compare(path: path, fields: fields, to: end, orderBy: query.orderBy) > 0,
                hasAllOrderFields(fields)
            {
                // The scan runs in query order, so nothing after the end cursor can match.
                finished = true
                return nil
            }
            if requiredFields.allSatisfy({ fields.value(at: $0) != nil }),
                QueryMatcher.matches(path: path, fields: fields, query: query)
            {
                return QueryExecutor.Match(document: document, fields: fields)
            }
        }
        return nil
    }

    /// The next candidate in the query's scope with its document, in scan order — except that a run of candidates
    /// sharing a cut index key (``IndexKeyCap``) is read whole and handed out in query order, which the index
    /// could not give it.
    private mutating func nextCandidate(
        _ statistics: inout QueryStatistics
    ) throws -> (ResourcePath, StoredDocument, [String: Value])? {
        while true {
            if let candidate = sortedRun.popLast() { return candidate }
            guard let path = try source.next(&statistics) else { return nil }
            guard let rest = try source.restOfCutRun(&statistics) else {
                guard query.contains(path: path), let document = try scanner.document(at: path) else { continue }
                statistics.documentsRead += 1
                return (path, document, try document.fields())
            }
            for member in [path] + rest where query.contains(path: member) {
                guard let document = try scanner.document(at: member) else { continue }
                statistics.documentsRead += 1
                sortedRun.append((member, document, try document.fields()))
            }
            // Last first, so each is popped off the end.
            let orderBy = query.orderBy
            sortedRun.sort { QueryMatcher.compare(($0.0, $0.2), ($1.0, $1.2), orderBy: orderBy) > 0 }
        }
    }

    private func hasAllOrderFields(_ fields: [String: Value]) -> Bool {
        query.orderBy.allSatisfy { $0.field == .documentName || fields.value(at: $0.field) != nil }
    }
}

/// Named documents, fetched, checked and sorted in query order.
private struct LookupSource: CandidateSource {
    private var paths: [ResourcePath]

    init(scanner: any IndexScanner, query: StructuredQuery, paths: [ResourcePath]) throws {
        var found: [(ResourcePath, [String: Value])] = []
        for path in Set(paths) where path.isDocument {
            if let document = try scanner.document(at: path) { found.append((path, try document.fields())) }
        }
        found.sort { QueryMatcher.compare(($0.0, $0.1), ($1.0, $1.1), orderBy: query.orderBy) < 0 }
        self.paths = found.map(\.0)
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        guard !paths.isEmpty else { return nil }
        statistics.indexEntriesRead += 1
        return paths.removeFirst()
    }
}

/// Counts from index entries alone, for exact plans.
private struct IndexCount {
    let scanner: any IndexScanner
    let query: StructuredQuery

    /// The count, or `nil` when the index alone cannot tell it: some row it covers has a cut key
    /// (``IndexKeyCap``), which may stand for a value outside the query's ranges.
    func count(_ scan: ScanPlan, upTo: Int64?, _ statistics: inout QueryStatistics) throws -> Int64? {
        let cap = upTo ?? Int64.max
        var total: Int64 = 0
        for target in targets(scan) {
            guard total < cap else { break }
            guard let counted = try scanner.countUncut(target, cap: cap - total) else { return nil }
            statistics.indexEntriesRead += Int(counted)
            total += counted
        }
        return total
    }

    /// What the scan covers, in stored keys.
    private func targets(_ scan: ScanPlan) -> [CountTarget] {
        let collection = query.parent.appending(query.collectionID)
        let keyCap = scanner.indexKeyCap
        func stored(_ ranges: RangeSet) -> [KeyRange] { keyCap.map { $0.widened(ranges.ranges) } ?? ranges.ranges }
        switch scan {
        case .names:
            return [.collection(collection)]
        case .groupNames:
            return [.group(collectionID: query.isKindless ? "" : query.collectionID, parent: query.parent)]
        case .field(let name, let kind, let ranges, _):
            return stored(ranges).map { .range(.field(collection: collection, field: name, kind: kind), $0) }
        case .composite(let indexID, let scope, _, let ranges, _, _):
            return stored(ranges).map { .range(.composite(indexID: indexID, scope: scope), $0) }
        case .ids(.point(let field, let kind, let key), _):
            let key = keyCap.map { $0.stored(key) } ?? key
            return [.point(IndexPoint(collection: collection, field: field, kind: kind, key: key))]
        case .ids, .documents, .unindexed:
            return []
        }
    }
}
