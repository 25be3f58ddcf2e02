import HearthCore

/// A query condition, composable with ``orFilter(_:)`` and ``andFilter(_:)`` — Hearth's `Filter`.
public final class Filter: Sendable {
    /// The condition, or what is wrong with it (reported when the query runs, so building never crashes).
    let build: @Sendable (QueryState) throws(FirestoreErrorCode) -> QueryFilter

    private init(_ build: @escaping @Sendable (QueryState) throws(FirestoreErrorCode) -> QueryFilter) {
        self.build = build
    }

    /// Matches documents satisfying any of `filters`.
    public static func orFilter(_ filters: [Filter]) -> Filter {
        Filter { state throws(FirestoreErrorCode) in
            var parts: [QueryFilter] = []
            for filter in filters { parts.append(try filter.build(state)) }
            return parts.count == 1 ? parts[0] : .or(parts)
        }
    }

    /// Matches documents satisfying all of `filters`.
    public static func andFilter(_ filters: [Filter]) -> Filter {
        Filter { state throws(FirestoreErrorCode) in
            var parts: [QueryFilter] = []
            for filter in filters { parts.append(try filter.build(state)) }
            return parts.count == 1 ? parts[0] : .and(parts)
        }
    }

    /// A field comparison; `value` is converted now so a bad value is reported, not carried.
    static func field(_ field: Any, _ op: FieldOperator, _ value: Any) -> Filter {
        let path = Result { () throws(FirestoreErrorCode) in try FieldPath.from(field).core }
        let raw = Result { () throws(FirestoreErrorCode) in try RawOperand(value) }
        return Filter { state throws(FirestoreErrorCode) in
            try state.fieldFilter(try path.get(), op, try raw.get())
        }
    }

    /// `field == value`.
    public static func whereField(_ field: String, isEqualTo value: Any) -> Filter { Self.field(field, .equal, value) }
    /// `field != value`.
    public static func whereField(_ field: String, isNotEqualTo value: Any) -> Filter {
        Self.field(field, .notEqual, value)
    }
    /// `field < value`.
    public static func whereField(_ field: String, isLessThan value: Any) -> Filter {
        Self.field(field, .lessThan, value)
    }
    /// `field <= value`.
    public static func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Filter {
        Self.field(field, .lessThanOrEqual, value)
    }
    /// `field > value`.
    public static func whereField(_ field: String, isGreaterThan value: Any) -> Filter {
        Self.field(field, .greaterThan, value)
    }
    /// `field >= value`.
    public static func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Filter {
        Self.field(field, .greaterThanOrEqual, value)
    }
    /// The array field contains `value`.
    public static func whereField(_ field: String, arrayContains value: Any) -> Filter {
        Self.field(field, .arrayContains, value)
    }
    /// The array field contains any of `values`.
    public static func whereField(_ field: String, arrayContainsAny values: [Any]) -> Filter {
        Self.field(field, .arrayContainsAny, values)
    }
    /// The field equals one of `values`.
    public static func whereField(_ field: String, in values: [Any]) -> Filter { Self.field(field, .in, values) }
    /// The field equals none of `values`.
    public static func whereField(_ field: String, notIn values: [Any]) -> Filter { Self.field(field, .notIn, values) }
    /// `field == value` by ``FieldPath``.
    public static func whereField(_ path: FieldPath, isEqualTo value: Any) -> Filter { Self.field(path, .equal, value) }
    /// `field != value` by ``FieldPath``.
    public static func whereField(_ path: FieldPath, isNotEqualTo value: Any) -> Filter {
        Self.field(path, .notEqual, value)
    }
    /// `field < value` by ``FieldPath``.
    public static func whereField(_ path: FieldPath, isLessThan value: Any) -> Filter {
        Self.field(path, .lessThan, value)
    }
    /// `field <= value` by ``FieldPath``.
    public static func whereField(_ path: FieldPath, isLessThanOrEqualTo value: Any) -> Filter {
        Self.field(path, .lessThanOrEqual, value)
    }
    /// `field > value` by ``FieldPath``.
    public static func whereField(_ path: FieldPath, isGreaterThan value: Any) -> Filter {
        Self.field(path, .greaterThan, value)
    }
    /// `field >= value` by ``FieldPath``.
    public static func whereField(_ path: FieldPath, isGreaterThanOrEqualTo value: Any) -> Filter {
        Self.field(path, .greaterThanOrEqual, value)
    }
    /// The array field contains `value`, by ``FieldPath``.
    public static func whereField(_ path: FieldPath, arrayContains value: Any) -> Filter {
        Self.field(path, .arrayContains, value)
    }
    /// The array field contains any of `values` (at most 30), by ``FieldPath``.
    public static func whereField(_ path: FieldPath, arrayContainsAny values: [Any]) -> Filter {
        Self.field(path, .arrayContainsAny, values)
    }
    /// The field equals one of `values`, by ``FieldPath``.
    public static func whereField(_ path: FieldPath, in values: [Any]) -> Filter { Self.field(path, .in, values) }
    /// The field equals none of `values`, by ``FieldPath``.
    public static func whereField(_ path: FieldPath, notIn values: [Any]) -> Filter { Self.field(path, .notIn, values) }
}

/// A filter operand converted from the caller's `Any` into Sendable form; document-ID strings stay strings until the
/// query's collection is known.
enum RawOperand: Sendable {
    case value(Value)
    case string(String)
    case list([RawOperand])

    init(_ any: Any) throws(FirestoreErrorCode) {
        if let text = any as? String {
            self = .string(text)
        } else if let list = any as? [Any] {
            var items: [RawOperand] = []
            for item in list { items.append(try RawOperand(item)) }
            self = .list(items)
        } else {
            self = .value(try UserData.value(any))
        }
    }

    /// The value, with strings as document references when the field is the document ID.
    func resolve(documentID: Bool, in state: QueryState, database: DatabaseName) throws(FirestoreErrorCode) -> Value {
        switch self {
        case .value(let value):
            return value
        case .string(let text):
            guard documentID else { return .string(text) }
            let path =
                text.contains("/") || state.allDescendants
                ? Firestore.path(text) : state.parent.appending(state.collectionID).appending(text)
            guard path.isDocument else {
                throw FirestoreErrorCode(
                    .invalidArgument, "A document ID filter value must name a document; \"\(text)\" does not.")
            }
            return .reference(database.name(of: path))
        case .list(let items):
            var values: [Value] = []
            for item in items { values.append(try item.resolve(documentID: documentID, in: state, database: database)) }
            return .array(values)
        }
    }
}
