import HearthCore
import HearthStore

/// The live results of a query with a `limit`: the first `limit` documents in query order are visible, and up to
/// `capacity - limit` more are kept behind them, so a document leaving the visible part is replaced without asking
/// the store.
///
/// Pure: the hub feeds it each change and, when it runs short (``needsRefill``), replaces its contents with fresh
/// results read at the same change-log position.
struct LimitWindow: Sendable {
    /// How many documents are visible.
    let limit: Int
    /// How many documents are kept (visible + spare).
    let capacity: Int
    /// The normalized orderings (ending in `__name__`, so the order is total).
    let orderBy: [QueryOrder]
    /// The documents kept, in query order.
    private(set) var entries: [MatchedDocument] = []
    /// Whether `entries` holds every matching document. When it does not, a document ordered after the last entry
    /// may be preceded by unknown documents, so it is not kept.
    private(set) var exhaustive = true
    private var members: [ResourcePath: [String: Value]] = [:]

    /// The spare documents kept for a visible `limit`: half of it, between 8 and 500.
    static func capacity(forLimit limit: Int) -> Int {
        limit + min(500, max(8, limit / 2))
    }

    init(limit: Int, orderBy: [QueryOrder]) {
        self.limit = limit
        capacity = Self.capacity(forLimit: limit)
        self.orderBy = orderBy
    }

    /// The visible documents, in order.
    var visible: ArraySlice<MatchedDocument> { entries.prefix(limit) }

    /// The visible documents' identities and versions.
    var visibleEntries: [VisibleEntry] {
        visible.map { VisibleEntry(path: $0.path, updateTime: $0.document.updateTime) }
    }

    /// Fewer documents are kept than are visible while more may exist: read the results again.
    var needsRefill: Bool { entries.count < limit && !exhaustive }

    func contains(_ path: ResourcePath) -> Bool { members[path] != nil }

    /// Replaces the contents with results read from the store (`documents` in query order, at most `capacity`).
    mutating func replace(with documents: [MatchedDocument], exhaustive: Bool) {
        entries = Array(documents.prefix(capacity))
        self.exhaustive = exhaustive && documents.count <= capacity
        members = Dictionary(entries.map { ($0.path, $0.fields) }, uniquingKeysWith: { first, _ in first })
    }

    /// Applies one committed change of `path`: `new` is its state when it matches the query, `nil` when it does
    /// not (deleted, or no longer matching).
    ///
    /// - Returns: the visible entries before the change when the visible part may have changed (the caller diffs
    ///   them against ``visibleEntries`` afterwards), `nil` when it certainly did not.
    mutating func apply(path: ResourcePath, new: MatchedDocument?) -> [VisibleEntry]? {
        let oldIndex = members[path].flatMap {
            index(of: MatchedDocument(document: placeholder(path), fields: $0), path: path)
        }
        var before: [VisibleEntry]?
        if let oldIndex, oldIndex < limit { before = visibleEntries }
        if let oldIndex {
            entries.remove(at: oldIndex)
            members[path] = nil
        }
        guard let new else { return before }
        let position = insertionIndex(of: new)
        if position == entries.count && !exhaustive {
            // Unknown documents may come between the last kept one and this one.
            return before
        }
        if before == nil && position < limit { before = visibleEntries }
        entries.insert(new, at: position)
        members[path] = new.fields
        if entries.count > capacity {
            let dropped = entries.removeLast()
            members[dropped.path] = nil
            exhaustive = false
        }
        return before
    }

    /// The index of the kept document `path` whose fields are `probe.fields`.
    private func index(of probe: MatchedDocument, path: ResourcePath) -> Int? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if MatchedDocument.compare(entries[middle], probe, orderBy) < 0 { low = middle + 1 } else { high = middle }
        }
        if low < entries.count && entries[low].path == path { return low }
        // Not where its order puts it (should not happen): find it the slow way rather than corrupt the window.
        return entries.firstIndex { $0.path == path }
    }

    /// Where `document` goes: after every kept document ordered before it.
    private func insertionIndex(of document: MatchedDocument) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if MatchedDocument.compare(entries[middle], document, orderBy) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    private func placeholder(_ path: ResourcePath) -> StoredDocument {
        StoredDocument(path: path, fieldsJSON: [], createTime: .min, updateTime: .min)
    }
}
