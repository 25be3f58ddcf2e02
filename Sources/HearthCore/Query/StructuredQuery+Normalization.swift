extension StructuredQuery {
    /// Firestore's implicit orderings: the explicit `orderBy`; then every inequality-filtered field not already
    /// ordered (in ``FieldPath`` order); then `__name__`, unless already ordered. Implicit orderings take the
    /// direction of the last explicit ordering (ascending if none), as Firestore and its SDKs do. Idempotent.
    public func normalized() -> StructuredQuery {
        var query = self
        query.orderBy = normalizedOrderBy
        return query
    }

    /// The orderings ``normalized()`` produces.
    public var normalizedOrderBy: [QueryOrder] {
        var orders = orderBy
        var ordered = Set(orderBy.map(\.field))
        let descending = orderBy.last?.descending ?? false
        let implicit = (filter?.inequalityFields ?? []).subtracting(ordered).subtracting([.documentName])
        for field in implicit.sorted() {
            orders.append(QueryOrder(field: field, descending: descending))
            ordered.insert(field)
        }
        if !ordered.contains(.documentName) {
            orders.append(QueryOrder(field: .documentName, descending: descending))
        }
        return orders
    }

    /// The path of the collection queried: `parent/collectionId` (for a collection group, the group's ID under
    /// `parent`).
    public var collectionPath: ResourcePath { parent.appending(collectionID) }

    /// Whether the query is kindless: every document below the parent, whatever its collection's ID.
    public var isKindless: Bool { allDescendants && collectionID.isEmpty }

    /// Whether a document is in the query's collection (`parent/collectionId`, or any depth below parent with
    /// allDescendants; any collection below parent when kindless).
    public func contains(path: ResourcePath) -> Bool {
        let segments = path.segments
        guard path.isDocument, isKindless || segments[segments.count - 2] == collectionID else { return false }
        if allDescendants {
            return segments.count > parent.segments.count && parent.isPrefix(of: path)
        }
        return segments.count == parent.segments.count + 2 && parent.isPrefix(of: path)
    }
}
