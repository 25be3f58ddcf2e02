import HearthCore
import HearthStore

/// The live results of one distinct query, shared by every target listening to it (on any session).
///
/// A query without a limit needs no state: a document is in the results exactly when it matches, so each change
/// says by itself whether it entered, changed in, or left them. A query with a limit keeps a ``LimitWindow``.
final class QueryView {
    let key: ViewKey
    /// The normalized query.
    let query: StructuredQuery
    let plan: IndexPlan
    var window: LimitWindow?
    var subscribers: [TargetKey: HubTarget] = [:]
    /// Set while listed as a candidate of the change being processed.
    var mark = 0

    init(key: ViewKey) {
        self.key = key
        query = key.query
        plan = IndexPlan(query: key.query)
        window = key.query.limit.map { LimitWindow(limit: $0, orderBy: key.query.orderBy) }
    }

    /// Applies one change at change-log position `sequence`, reading the results again through `reader` when a
    /// limit window runs short.
    func apply(_ change: DecodedChange, sequence: Int64, reader: SnapshotReader) throws(SnapshotFailure) -> ViewDelta {
        let after = change.after.flatMap { matches($0) ? $0 : nil }
        guard window != nil else {
            let before = change.before.map(matches) ?? false
            var delta = ViewDelta()
            if let after {
                delta.changed = [after.document]
            } else if before {
                if change.record.after == nil { delta.deleted = [change.path] } else { delta.removed = [change.path] }
            }
            return delta
        }
        // Mutated in place: a copy would duplicate the window's storage on every change.
        var visibleBefore = window!.apply(path: change.path, new: after)
        if window!.needsRefill {
            if visibleBefore == nil { visibleBefore = window!.visibleEntries }
            let state = try reader.query(query, capacity: window!.capacity, at: [sequence], requireCoverage: false)[0]
            window!.replace(with: state.documents, exhaustive: state.exhaustive)
        }
        guard let visibleBefore else { return ViewDelta() }
        let deletion = change.record.after == nil
        return ViewDelta.between(visibleBefore, window!.visible, isDeleted: { deletion && $0 == change.path })
    }

    private func matches(_ document: MatchedDocument) -> Bool {
        QueryMatcher.matches(path: document.path, fields: document.fields, query: query)
    }
}

/// Identifies a distinct query on a database: equal queries share one view.
struct ViewKey: Hashable, Sendable {
    let query: StructuredQuery
    let database: DatabaseName

    init(query: StructuredQuery, database: DatabaseName) {
        self.query = query.normalized()
        self.database = database
    }

    static func == (lhs: ViewKey, rhs: ViewKey) -> Bool {
        lhs.database == rhs.database && lhs.query == rhs.query
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(database)
        hasher.combine(query.parent)
        hasher.combine(query.collectionID)
        hasher.combine(query.allDescendants)
        hasher.combine(query.orderBy)
        hasher.combine(query.limit)
        if let filter = query.filter { Self.hash(filter, into: &hasher) }
        hasher.combine(query.startAt?.values)
        hasher.combine(query.endAt?.values)
    }

    private static func hash(_ filter: QueryFilter, into hasher: inout Hasher) {
        switch filter {
        case .field(let field, let op, let value):
            hasher.combine(0)
            hasher.combine(field)
            hasher.combine(op)
            hasher.combine(value)
        case .unary(let field, let op):
            hasher.combine(1)
            hasher.combine(field)
            hasher.combine(op)
        case .and(let filters):
            hasher.combine(2)
            for filter in filters { hash(filter, into: &hasher) }
        case .or(let filters):
            hasher.combine(3)
            for filter in filters { hash(filter, into: &hasher) }
        }
    }
}
