/// A Firestore `StructuredQuery`: which collection, which documents, in what order, how many.
///
/// Built from REST JSON (``init(firestoreJSON:at:database:parent:)``) or by the SDK. ``normalized()`` adds
/// Firestore's implicit orderings; ``QueryMatcher`` decides membership and order without any storage, so the
/// same model serves the server's planner, the listener hub and the SDK's local cache.
public struct StructuredQuery: Sendable, Equatable {
    /// The parent the query runs under: the root or a document.
    public var parent: ResourcePath
    /// The collection ID queried (`from[0].collectionId`).
    public var collectionID: String
    /// Whether every collection with that ID below `parent` is queried (a collection-group query).
    public var allDescendants: Bool
    /// The filter, if any.
    public var filter: QueryFilter?
    /// The explicit orderings, in order.
    public var orderBy: [QueryOrder]
    /// Where results start (`startAt`).
    public var startAt: QueryCursor?
    /// Where results end (`endAt`).
    public var endAt: QueryCursor?
    /// How many leading results to skip.
    public var offset: Int
    /// The most results to return.
    public var limit: Int?
    /// The fields returned (`select`); `nil` returns whole documents. An empty list returns only names.
    public var projection: [FieldPath]?

    /// Creates a query.
    public init(
        parent: ResourcePath, collectionID: String, allDescendants: Bool = false, filter: QueryFilter? = nil,
        orderBy: [QueryOrder] = [], startAt: QueryCursor? = nil, endAt: QueryCursor? = nil, offset: Int = 0,
        limit: Int? = nil, projection: [FieldPath]? = nil
    ) {
        self.parent = parent
        self.collectionID = collectionID
        self.allDescendants = allDescendants
        self.filter = filter
        self.orderBy = orderBy
        self.startAt = startAt
        self.endAt = endAt
        self.offset = offset
        self.limit = limit
        self.projection = projection
    }
}

/// One ordering of a query.
public struct QueryOrder: Sendable, Hashable {
    /// The field ordered by; ``FieldPath/documentName`` for `__name__`.
    public var field: FieldPath
    /// Whether the order is descending.
    public var descending: Bool

    /// Creates an ordering.
    public init(field: FieldPath, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }
}

/// A position in a query's order (`Cursor`): values for a prefix of the (normalized) orderings.
public struct QueryCursor: Sendable, Equatable {
    /// One value per ordering, in order; a `__name__` ordering takes a `referenceValue`.
    public var values: [Value]
    /// Whether the position is just before the values (`startAt`/`endBefore`) rather than just after them
    /// (`startAfter`/`endAt`).
    public var before: Bool

    /// Creates a cursor.
    public init(values: [Value], before: Bool) {
        self.values = values
        self.before = before
    }
}

/// A query filter (`Filter`): a field comparison, a unary test, or an AND/OR of filters.
public indirect enum QueryFilter: Sendable, Equatable {
    /// `fieldFilter`.
    case field(FieldPath, FieldOperator, Value)
    /// `unaryFilter`.
    case unary(FieldPath, UnaryOperator)
    /// `compositeFilter` with `AND`.
    case and([QueryFilter])
    /// `compositeFilter` with `OR`.
    case or([QueryFilter])
}

/// The operators of a field filter.
public enum FieldOperator: String, Sendable, Hashable, CaseIterable {
    /// `<`.
    case lessThan = "LESS_THAN"
    /// `<=`.
    case lessThanOrEqual = "LESS_THAN_OR_EQUAL"
    /// `>`.
    case greaterThan = "GREATER_THAN"
    /// `>=`.
    case greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
    /// `==`.
    case equal = "EQUAL"
    /// `!=`.
    case notEqual = "NOT_EQUAL"
    /// `array-contains`.
    case arrayContains = "ARRAY_CONTAINS"
    /// `in`.
    case `in` = "IN"
    /// `array-contains-any`.
    case arrayContainsAny = "ARRAY_CONTAINS_ANY"
    /// `not-in`.
    case notIn = "NOT_IN"

    /// Whether the operator is an inequality, which forces an ordering on its field.
    public var isInequality: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn: return true
        default: return false
        }
    }
}

/// The operators of a unary filter.
public enum UnaryOperator: String, Sendable, Hashable, CaseIterable {
    /// The field is NaN.
    case isNaN = "IS_NAN"
    /// The field is null.
    case isNull = "IS_NULL"
    /// The field exists and is not NaN.
    case isNotNaN = "IS_NOT_NAN"
    /// The field exists and is not null.
    case isNotNull = "IS_NOT_NULL"
}
