import HearthCore

/// A sorted stream of document IDs that can jump forward: the building block of zig-zag merge joins.
private protocol IDStream {
    /// The first ID at or past `target` in the stream's direction (strictly past when not `inclusive`);
    /// `nil` target means the start. `nil` when the stream is exhausted.
    mutating func seek(_ target: String?, inclusive: Bool, _ statistics: inout QueryStatistics) throws -> String?
}

/// IDs in ID order whose documents have one single-field index key, read a page at a time.
private struct PointStream: IDStream {
    let scanner: any IndexScanner
    let point: IndexPoint
    let descending: Bool
    private var buffer: [String] = []
    private var bufferExhaustsStream = false

    init(scanner: any IndexScanner, point: IndexPoint, descending: Bool) {
        self.scanner = scanner
        self.point = point
        self.descending = descending
    }

    /// Whether `a` comes before `b` in the stream's direction.
    private func before(_ a: String, _ b: String) -> Bool {
        let order = Value.compareBytes(a.utf8, b.utf8)
        return descending ? order > 0 : order < 0
    }

    mutating func seek(_ target: String?, inclusive: Bool, _ statistics: inout QueryStatistics) throws -> String? {
        func satisfies(_ id: String) -> Bool {
            guard let target else { return true }
            return inclusive ? !before(id, target) : before(target, id)
        }
        // Within the buffered page, answer without SQL.
        if let last = buffer.last, satisfies(last) {
            let index = buffer.firstIndex(where: satisfies)!
            buffer.removeFirst(index)
            statistics.indexEntriesRead += 1
            return buffer.first
        }
        if bufferExhaustsStream { return nil }
        let rows = try scanner.pointIDs(
            point, from: target, inclusive: inclusive, descending: descending, limit: 64)
        buffer = rows
        bufferExhaustsStream = rows.count < 64
        statistics.indexEntriesRead += 1
        return buffer.first
    }
}

/// Any of several streams.
private struct UnionStream: IDStream {
    var children: [any IDStream]
    let descending: Bool

    mutating func seek(_ target: String?, inclusive: Bool, _ statistics: inout QueryStatistics) throws -> String? {
        var best: String?
        for index in children.indices {
            guard let candidate = try children[index].seek(target, inclusive: inclusive, &statistics) else { continue }
            if let current = best {
                let order = Value.compareBytes(candidate.utf8, current.utf8)
                if descending ? order > 0 : order < 0 { best = candidate }
            } else {
                best = candidate
            }
        }
        return best
    }
}

/// Every stream at once: each child jumps to the furthest candidate until all agree (zig-zag).
private struct IntersectionStream: IDStream {
    var children: [any IDStream]

    mutating func seek(_ target: String?, inclusive: Bool, _ statistics: inout QueryStatistics) throws -> String? {
        guard !children.isEmpty, var candidate = try children[0].seek(target, inclusive: inclusive, &statistics) else {
            return nil
        }
        var agreeing = 1
        var index = 1
        while agreeing < children.count {
            guard let found = try children[index % children.count].seek(candidate, inclusive: true, &statistics) else {
                return nil
            }
            if found == candidate {
                agreeing += 1
            } else {
                candidate = found
                agreeing = 1
            }
            index += 1
        }
        return candidate
    }
}

/// Candidates from a zig-zag plan, in ID order.
struct IDSource: CandidateSource {
    private var stream: any IDStream
    private let collection: ResourcePath
    private var last: String?
    private var started = false

    init(scanner: any IndexScanner, collection: ResourcePath, plan: IDPlan, descending: Bool) {
        self.collection = collection
        stream = Self.build(plan, scanner: scanner, collection: collection, descending: descending)
    }

    private static func build(
        _ plan: IDPlan, scanner: any IndexScanner, collection: ResourcePath, descending: Bool
    ) -> any IDStream {
        switch plan {
        case .point(let field, let kind, let key):
            // A key past the cap is looked up by its stored cut: a superset, which the matcher narrows.
            let stored = scanner.indexKeyCap.map { $0.stored(key) } ?? key
            return PointStream(
                scanner: scanner, point: IndexPoint(collection: collection, field: field, kind: kind, key: stored),
                descending: descending)
        case .union(let plans):
            return UnionStream(
                children: plans.map { build($0, scanner: scanner, collection: collection, descending: descending) },
                descending: descending)
        case .intersection(let plans):
            return IntersectionStream(
                children: plans.map { build($0, scanner: scanner, collection: collection, descending: descending) })
        }
    }

    mutating func next(_ statistics: inout QueryStatistics) throws -> ResourcePath? {
        let id = try stream.seek(last, inclusive: !started, &statistics)
        started = true
        guard let id else { return nil }
        last = id
        return collection.appending(id)
    }
}
