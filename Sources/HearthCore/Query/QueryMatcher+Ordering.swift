extension QueryMatcher {
    /// Orders two documents by the normalized query's orderings (`__name__` compares paths segment by segment).
    /// Negative/zero/positive. A missing field sorts before every value (such documents are never in a result).
    public static func compare(
        _ a: (path: ResourcePath, fields: [String: Value]), _ b: (path: ResourcePath, fields: [String: Value]),
        orderBy: [QueryOrder]
    ) -> Int {
        for order in orderBy {
            var result: Int
            if order.field == .documentName {
                result = comparePaths(a.path.segments, b.path.segments)
            } else {
                result = compareOptional(a.fields.value(at: order.field), b.fields.value(at: order.field))
            }
            if order.descending { result = -result }
            if result != 0 { return result }
        }
        return 0
    }

    /// Where a document stands relative to a cursor: negative if before the cursor position, positive if after
    /// (the cursor's `before` flag decides ties). Never zero: a cursor's position lies between documents.
    ///
    /// The cursor's values are compared with the document's, in order, for a prefix of `orderBy` (extra values
    /// are ignored); a `__name__` value is a reference compared with the document's path. A document equal on
    /// every value is after a `before` cursor (`startAt`/`endBefore`) and before any other
    /// (`startAfter`/`endAt`). So `startAt` keeps documents with a positive result and `endAt` those with a
    /// negative one.
    public static func compare(
        path: ResourcePath, fields: [String: Value], to cursor: QueryCursor, orderBy: [QueryOrder]
    ) -> Int {
        for (value, order) in zip(cursor.values, orderBy) {
            var result: Int
            if order.field == .documentName {
                result = compareName(path, value)
            } else {
                result = compareOptional(fields.value(at: order.field), value)
            }
            if order.descending { result = -result }
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return cursor.before ? 1 : -1
    }

    private static func compareOptional(_ a: Value?, _ b: Value?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let a?, let b?): return Value.compare(a, b)
        }
    }
}
