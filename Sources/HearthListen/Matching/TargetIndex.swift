import HearthCore

/// Finds the query views a write may affect without looking at every view.
///
/// Views are filed by scope (collection path, or collection-group ID), then by the field/value pairs their filter
/// pins (``IndexPlan``). For a write, the candidates are the scope's unindexed views plus, for each field some view
/// pins, the views filed under the value the document had before or has after. So the cost of matching one write
/// grows with the number of distinct pinned fields in its collection and with the views it really concerns, not
/// with the number of listening queries.
struct TargetIndex<Item: AnyObject> {
    private struct Bucket {
        var byField: [FieldPath: [IndexValue: [ObjectIdentifier: Item]]] = [:]
        var unindexed: [ObjectIdentifier: Item] = [:]
        var isEmpty: Bool { byField.isEmpty && unindexed.isEmpty }
    }

    private var collections: [ResourcePath: Bucket] = [:]
    private var groups: [String: Bucket] = [:]

    mutating func insert(_ item: Item, plan: IndexPlan) {
        update(plan.scope) { bucket in
            guard let keys = plan.keys else {
                bucket.unindexed[ObjectIdentifier(item)] = item
                return
            }
            for key in keys {
                bucket.byField[key.field, default: [:]][key.value, default: [:]][ObjectIdentifier(item)] = item
            }
        }
    }

    mutating func remove(_ item: Item, plan: IndexPlan) {
        update(plan.scope) { bucket in
            guard let keys = plan.keys else {
                bucket.unindexed[ObjectIdentifier(item)] = nil
                return
            }
            for key in keys {
                bucket.byField[key.field]?[key.value]?[ObjectIdentifier(item)] = nil
                if bucket.byField[key.field]?[key.value]?.isEmpty == true {
                    bucket.byField[key.field]?[key.value] = nil
                }
                if bucket.byField[key.field]?.isEmpty == true { bucket.byField[key.field] = nil }
            }
        }
    }

    /// Calls `body` with every view a change of a document may concern (a view can come more than once).
    func forEachCandidate(of change: DecodedChange, _ body: (Item) -> Void) {
        let collection = change.path.parent
        if let bucket = collections[collection] { visit(bucket, change, body) }
        if let bucket = groups[collection.lastSegment] { visit(bucket, change, body) }
    }

    /// Whether nothing is filed.
    var isEmpty: Bool { collections.isEmpty && groups.isEmpty }

    private func visit(_ bucket: Bucket, _ change: DecodedChange, _ body: (Item) -> Void) {
        for item in bucket.unindexed.values { body(item) }
        guard !bucket.byField.isEmpty else { return }
        for (field, byValue) in bucket.byField {
            var beforeKey: IndexValue?
            if let value = change.before?.fields.value(at: field), let key = IndexValue(value) {
                beforeKey = key
                if let items = byValue[key] { for item in items.values { body(item) } }
            }
            if let value = change.after?.fields.value(at: field), let key = IndexValue(value), key != beforeKey,
                let items = byValue[key]
            {
                for item in items.values { body(item) }
            }
        }
    }

    private mutating func update(_ scope: IndexPlan.Scope, _ body: (inout Bucket) -> Void) {
        switch scope {
        case .collection(let path):
            body(&collections[path, default: Bucket()])
            if collections[path]?.isEmpty == true { collections[path] = nil }
        case .group(let id):
            body(&groups[id, default: Bucket()])
            if groups[id]?.isEmpty == true { groups[id] = nil }
        }
    }
}
