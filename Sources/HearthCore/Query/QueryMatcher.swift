/// Decides whether a document belongs to a query's result, with Firestore's semantics as its client SDKs
/// implement them for latency compensation. Pure: the server's executor, the listener hub and the SDK's cache
/// all use it.
public enum QueryMatcher {
    /// Whether a document (path + fields) matches: in the collection, has every orderBy field of the normalized
    /// query (a document without an ordered field is not in the result — `__name__` always exists), passes the
    /// filter, and lies within startAt/endAt. Pass a normalized query.
    public static func matches(path: ResourcePath, fields: [String: Value], query: StructuredQuery) -> Bool {
        guard query.contains(path: path) else { return false }
        for order in query.orderBy where order.field != .documentName {
            if fields.value(at: order.field) == nil { return false }
        }
        if let filter = query.filter, !passes(filter, path: path, fields: fields) { return false }
        return isWithinCursors(path: path, fields: fields, query: query)
    }

    /// Whether a document passes the filter alone.
    ///
    /// Comparisons (`<`, `<=`, `>`, `>=`, `==`) match only values of the operand's type order (integers and
    /// doubles compare numerically; NaN equals itself). As in production, `<`, `<=`, `>` and `>=` never match
    /// a null or NaN value or operand, and IN, ARRAY_CONTAINS and ARRAY_CONTAINS_ANY ignore null and NaN
    /// operands. `!=`, NOT_IN, IS_NOT_NULL and IS_NOT_NAN never match a missing or null field; NOT_IN with a
    /// null in its list matches nothing. IN, NOT_IN and the array operators use value equivalence (`1 == 1.0`,
    /// `-0.0 == 0.0`).
    public static func passes(_ filter: QueryFilter, path: ResourcePath, fields: [String: Value]) -> Bool {
        switch filter {
        case .and(let filters):
            return filters.allSatisfy { passes($0, path: path, fields: fields) }
        case .or(let filters):
            return filters.contains { passes($0, path: path, fields: fields) }
        case .unary(let field, let op):
            let value = field == .documentName ? nil : fields.value(at: field)
            return passes(op, value: value, isName: field == .documentName)
        case .field(let field, let op, let operand):
            if field == .documentName { return passesName(op, operand: operand, path: path) }
            return passes(op, operand: operand, value: fields.value(at: field))
        }
    }

    /// Whether a document lies after `startAt` and before `endAt` in the query's order.
    ///
    /// A plain query's `__name__` cursor naming a path outside its collection leaves no document within, as
    /// Firestore answers it; a collection group's may name any path.
    public static func isWithinCursors(path: ResourcePath, fields: [String: Value], query: StructuredQuery) -> Bool {
        if !query.allDescendants, !cursorsStayInCollection(query) { return false }
        if let start = query.startAt, compare(path: path, fields: fields, to: start, orderBy: query.orderBy) < 0 {
            return false
        }
        if let end = query.endAt, compare(path: path, fields: fields, to: end, orderBy: query.orderBy) > 0 {
            return false
        }
        return true
    }

    /// Whether every `__name__` value of the query's cursors names a document of its collection.
    private static func cursorsStayInCollection(_ query: StructuredQuery) -> Bool {
        guard let key = query.orderBy.firstIndex(where: { $0.field == .documentName }) else { return true }
        for cursor in [query.startAt, query.endAt] {
            guard let cursor, key < cursor.values.count, case .reference(let name) = cursor.values[key] else {
                continue
            }
            let segments = referenceSegments(name)
            guard segments.count == query.collectionPath.segments.count + 1,
                segments.dropLast().elementsEqual(query.collectionPath.segments)
            else { return false }
        }
        return true
    }

    private static func passes(_ op: UnaryOperator, value: Value?, isName: Bool) -> Bool {
        if isName { return op.isInequality }  // a name exists and is neither null nor NaN
        switch op {
        case .isNull: return value == .null
        case .isNaN: return value?.isNaN == true
        case .isNotNull: return value != nil && value != .null
        case .isNotNaN: return value != nil && value != .null && value?.isNaN != true
        }
    }

    private static func passes(_ op: FieldOperator, operand: Value, value: Value?) -> Bool {
        guard let value else { return false }
        switch op {
        case .notEqual:
            return value != .null && Value.compare(value, operand) != 0
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard !value.isNullOrNaN, !operand.isNullOrNaN else { return false }
            return value.typeOrder == operand.typeOrder && op.accepts(Value.compare(value, operand))
        case .equal:
            return value.typeOrder == operand.typeOrder && op.accepts(Value.compare(value, operand))
        case .arrayContains:
            guard !operand.isNullOrNaN else { return false }
            return value.arrayElements?.contains { $0.isEquivalent(to: operand) } ?? false
        case .arrayContainsAny:
            guard let elements = value.arrayElements, let wanted = operand.arrayElements else { return false }
            return elements.contains { element in wanted.contains { !$0.isNullOrNaN && element.isEquivalent(to: $0) } }
        case .in:
            return operand.arrayElements?.contains { !$0.isNullOrNaN && value.isEquivalent(to: $0) } ?? false
        case .notIn:
            guard let excluded = operand.arrayElements, !excluded.contains(.null), value != .null else { return false }
            return !excluded.contains { value.isEquivalent(to: $0) }
        }
    }

    /// `__name__` filters compare the document's path with document references, whatever the types' order.
    private static func passesName(_ op: FieldOperator, operand: Value, path: ResourcePath) -> Bool {
        switch op {
        case .in:
            return operand.arrayElements?.contains { compareName(path, $0) == 0 } ?? false
        case .notIn:
            return !(operand.arrayElements?.contains { compareName(path, $0) == 0 } ?? false)
        case .arrayContains, .arrayContainsAny:
            return false
        default:
            return op.accepts(compareName(path, operand))
        }
    }

    /// Compares a document's path with a `__name__` value: a reference compares by path segments; any other
    /// value by Firestore's type order (references rank 6).
    static func compareName(_ path: ResourcePath, _ value: Value) -> Int {
        guard case .reference(let name) = value else {
            return Value.reference("").typeOrder < value.typeOrder ? -1 : 1
        }
        return comparePaths(path.segments, referenceSegments(name))
    }

    /// The document path of a reference (`projects/p/databases/d/documents/a/b` → `a/b`).
    static func referenceSegments(_ name: String) -> [String] {
        name.split(separator: "/", omittingEmptySubsequences: false).dropFirst(5).map(String.init)
    }

    /// Compares two paths segment by segment, a prefix first. IDs compare in UTF-8 byte order, except that a
    /// numeric ID (`__id42__`, Firestore's form for legacy integer IDs) sorts before every other ID, numerically:
    /// the admin clients start recursive deletes at `__id-9223372036854775808__`, the least ID there is.
    static func comparePaths(_ a: [String], _ b: [String]) -> Int {
        for (x, y) in zip(a, b) {
            let result: Int
            switch (numericID(x), numericID(y)) {
            case (let m?, let n?): result = m < n ? -1 : (m == n ? 0 : 1)
            case (.some, nil): result = -1
            case (nil, .some): result = 1
            case (nil, nil): result = Value.compareBytes(x.utf8, y.utf8)
            }
            if result != 0 { return result }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// The integer of a numeric ID `__id<int64>__`, else `nil`. Stored documents never have one (the name is
    /// reserved), so only cursor and filter operands do.
    static func numericID(_ id: String) -> Int64? {
        let utf8 = id.utf8
        guard utf8.count > 6, utf8.first == UInt8(ascii: "_"), id.hasPrefix("__id"), id.hasSuffix("__") else {
            return nil
        }
        return Int64(id.dropFirst(4).dropLast(2))
    }
}

extension FieldOperator {
    /// Whether a comparison result (value versus operand) satisfies this comparison operator.
    func accepts(_ comparison: Int) -> Bool {
        switch self {
        case .lessThan: return comparison < 0
        case .lessThanOrEqual: return comparison <= 0
        case .greaterThan: return comparison > 0
        case .greaterThanOrEqual: return comparison >= 0
        case .equal: return comparison == 0
        case .notEqual: return comparison != 0
        default: return false
        }
    }
}
