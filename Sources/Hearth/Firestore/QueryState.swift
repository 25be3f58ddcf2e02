import HearthCore

/// Everything a ``Query`` says, as a Sendable value; each builder call copies it with one change.
struct QueryState: Sendable {
    var parent: ResourcePath
    var collectionID: String
    var allDescendants = false
    var database = DatabaseName(project: "")
    var filters: [@Sendable (QueryState) throws(FirestoreErrorCode) -> QueryFilter] = []
    var orders: [QueryOrder] = []
    var limit: Int?
    var limitToLast = false
    var startAt: Result<QueryCursor, FirestoreErrorCode>?
    var endAt: Result<QueryCursor, FirestoreErrorCode>?

    /// A field filter, with Firestore's rewrites: `== nil` is `IS_NULL`, `== .nan` is `IS_NAN`, `!=` likewise.
    func fieldFilter(
        _ path: HearthCore.FieldPath, _ op: FieldOperator, _ raw: RawOperand
    ) throws(FirestoreErrorCode)
        -> QueryFilter
    {
        let value = try raw.resolve(documentID: path == .documentName, in: self, database: database)
        if op == .equal || op == .notEqual {
            if value == .null { return .unary(path, op == .equal ? .isNull : .isNotNull) }
            if value.isNaN { return .unary(path, op == .equal ? .isNaN : .isNotNaN) }
        }
        if [.in, .notIn, .arrayContainsAny].contains(op) {
            guard case .array(let items) = value, !items.isEmpty else {
                throw FirestoreErrorCode(.invalidArgument, "'\(op.rawValue)' filters need a non-empty array.")
            }
        }
        return .field(path, op, value)
    }

    /// The HearthCore query, without the limit-to-last flip. Its orderings are the normalized ones, stated
    /// explicitly as Firebase's SDKs send them: a cursor taken from a snapshot holds a value for each, and Firestore
    /// accepts at most one cursor value per stated ordering.
    func structured() throws(FirestoreErrorCode) -> StructuredQuery {
        var parts: [QueryFilter] = []
        for filter in filters { parts.append(try filter(self)) }
        let filter: QueryFilter? = parts.isEmpty ? nil : parts.count == 1 ? parts[0] : .and(parts)
        return StructuredQuery(
            parent: parent, collectionID: collectionID, allDescendants: allDescendants, filter: filter,
            orderBy: orders, startAt: try startAt?.get(), endAt: try endAt?.get(), limit: limit
        ).normalized()
    }

    /// The query sent to the server: for `limit(toLast:)` every ordering is reversed and the cursors swap, and the
    /// results are reversed again on arrival, as Firestore's clients do.
    func wireQuery() throws(FirestoreErrorCode) -> StructuredQuery {
        var query = try structured()
        guard limitToLast else { return query }
        guard !orders.isEmpty else {
            throw FirestoreErrorCode(
                .invalidArgument, "limit(toLast:) queries require specifying at least one order(by:) clause.")
        }
        query.orderBy = query.normalizedOrderBy.map { QueryOrder(field: $0.field, descending: !$0.descending) }
        let start = query.startAt
        let end = query.endAt
        query.startAt = end.map { QueryCursor(values: $0.values, before: !$0.before) }
        query.endAt = start.map { QueryCursor(values: $0.values, before: !$0.before) }
        return query
    }

    /// A cursor at `snapshot`: its values for every ordering in effect, ending with its name.
    func cursor(at snapshot: DocumentSnapshot, before: Bool) -> Result<QueryCursor, FirestoreErrorCode> {
        Result { () throws(FirestoreErrorCode) in
            guard let fields = snapshot.fields else {
                throw FirestoreErrorCode(.invalidArgument, "Cannot use a snapshot of a missing document as a cursor.")
            }
            let orders = try structured().normalizedOrderBy
            var values: [Value] = []
            for order in orders {
                if order.field == .documentName {
                    values.append(.reference(database.name(of: snapshot.reference.resourcePath)))
                } else if let value = fields.value(at: order.field) {
                    values.append(value)
                } else {
                    throw FirestoreErrorCode(
                        .invalidArgument,
                        "Invalid query: the cursor document has no value for the order-by field '\(order.field)'.")
                }
            }
            return QueryCursor(values: values, before: before)
        }
    }

    /// A cursor from field values matching the orderings in order.
    func cursor(values: [Any], before: Bool) -> Result<QueryCursor, FirestoreErrorCode> {
        Result { () throws(FirestoreErrorCode) in
            guard values.count <= orders.count else {
                throw FirestoreErrorCode(
                    .invalidArgument, "Too many cursor values: there are only \(orders.count) order(by:) clauses.")
            }
            var converted: [Value] = []
            for (index, any) in values.enumerated() {
                let raw = try RawOperand(any)
                converted.append(
                    try raw.resolve(documentID: orders[index].field == .documentName, in: self, database: database))
            }
            return QueryCursor(values: converted, before: before)
        }
    }
}
