public import HearthCore

/// What one branch of a query's filter promises about every document the query can return: the fields it pins to
/// one value and the ranges, exclusions and array memberships of the others. A list is judged from these, never from
/// its results (rules are not filters): `where n > 10` proves `resource.data.n > 5`, `where n > 2` does not.
public struct RulesQueryConstraints: Sendable, Equatable {
    /// Fields pinned to one value by `==`, a single value of `in`, or `IS_NULL`, as nested document fields
    /// (`a.b == 1` → `{a: {b: 1}}`).
    public var pinned: [String: Value]
    /// What the other filters say, by field path.
    public var fields: [FieldPath: RulesFieldConstraint]

    /// Constraints.
    public init(pinned: [String: Value] = [:], fields: [FieldPath: RulesFieldConstraint] = [:]) {
        self.pinned = pinned
        self.fields = fields
    }

    /// The most branches a filter is split into (an `in` of 30 values times an `array-contains-any` of 30 is 900);
    /// a filter with more is judged as if it constrained nothing.
    public static let maximumBranches = 64

    /// One set of constraints per branch of `filter`'s OR, `in` and `array-contains-any` each value its own branch.
    public static func branches(of filter: QueryFilter?) -> [RulesQueryConstraints] {
        guard let filter else { return [RulesQueryConstraints()] }
        return split(filter) ?? [RulesQueryConstraints()]
    }

    /// `nil` when there would be more than ``maximumBranches`` branches.
    private static func split(_ filter: QueryFilter) -> [RulesQueryConstraints]? {
        switch filter {
        case .field(let path, .equal, let value):
            return [RulesQueryConstraints(pinning: path, to: value)]
        case .field(let path, .in, .array(let values)) where !values.isEmpty:
            guard values.count <= maximumBranches else { return nil }
            return values.map { RulesQueryConstraints(pinning: path, to: $0) }
        case .field(let path, .arrayContainsAny, .array(let values)) where !values.isEmpty:
            guard values.count <= maximumBranches else { return nil }
            return values.map { RulesQueryConstraints(path, RulesFieldConstraint(contains: [$0])) }
        case .field(let path, .arrayContains, let value):
            return [RulesQueryConstraints(path, RulesFieldConstraint(contains: [value]))]
        case .field(let path, .notEqual, let value):
            return [RulesQueryConstraints(path, RulesFieldConstraint(excluded: [value]))]
        case .field(let path, .notIn, .array(let values)):
            return [RulesQueryConstraints(path, RulesFieldConstraint(excluded: values))]
        case .field(let path, .lessThan, let value):
            return [RulesQueryConstraints(path, RulesFieldConstraint(upper: .init(value: value, inclusive: false)))]
        case .field(let path, .lessThanOrEqual, let value):
            return [RulesQueryConstraints(path, RulesFieldConstraint(upper: .init(value: value, inclusive: true)))]
        case .field(let path, .greaterThan, let value):
            return [RulesQueryConstraints(path, RulesFieldConstraint(lower: .init(value: value, inclusive: false)))]
        case .field(let path, .greaterThanOrEqual, let value):
            return [RulesQueryConstraints(path, RulesFieldConstraint(lower: .init(value: value, inclusive: true)))]
        case .unary(let path, .isNull):
            return [RulesQueryConstraints(pinning: path, to: .null)]
        case .unary(let path, .isNotNull):
            return [RulesQueryConstraints(path, RulesFieldConstraint(excluded: [.null]))]
        case .and(let parts):
            var result = [RulesQueryConstraints()]
            for part in parts {
                guard let next = split(part) else { return nil }
                result = result.flatMap { existing in next.map { existing.merged(with: $0) } }
                if result.count > maximumBranches { return nil }
            }
            return result
        case .or(let parts):
            var result: [RulesQueryConstraints] = []
            for part in parts {
                guard let next = split(part) else { return nil }
                result += next
                if result.count > maximumBranches { return nil }
            }
            return result
        default:
            return [RulesQueryConstraints()]
        }
    }

    private init(pinning path: FieldPath, to value: Value) {
        var pinned: [String: Value] = [:]
        pinned.setValue(value, at: path)
        self.init(pinned: pinned)
    }

    private init(_ path: FieldPath, _ constraint: RulesFieldConstraint) {
        self.init(fields: [path: constraint])
    }

    /// Both sets of constraints at once (an AND).
    func merged(with other: RulesQueryConstraints) -> RulesQueryConstraints {
        func merge(_ a: Value, _ b: Value) -> Value {
            guard case .map(let x) = a, case .map(let y) = b else { return b }
            return .map(x.merging(y) { merge($0, $1) })
        }
        return RulesQueryConstraints(
            pinned: pinned.merging(other.pinned) { merge($0, $1) },
            fields: fields.merging(other.fields) { $0.intersected(with: $1) })
    }
}

/// What a query's filters say about one field of every document it returns, short of one value.
public struct RulesFieldConstraint: Sendable, Equatable {
    /// One end of a range.
    public struct Bound: Sendable, Equatable {
        /// The value at the end.
        public var value: Value
        /// Whether the value itself is inside.
        public var inclusive: Bool

        /// A bound.
        public init(value: Value, inclusive: Bool) {
            self.value = value
            self.inclusive = inclusive
        }
    }

    /// The lowest value (`>`, `>=`); a range filter also fixes the field's type, as Firestore orders by type first.
    public var lower: Bound?
    /// The highest value (`<`, `<=`).
    public var upper: Bound?
    /// Values the field never holds (`!=`, `not-in`, `IS_NOT_NULL`).
    public var excluded: [Value]
    /// Values the field, a list, always holds (`array-contains`, one value of `array-contains-any`).
    public var contains: [Value]

    /// A constraint.
    public init(lower: Bound? = nil, upper: Bound? = nil, excluded: [Value] = [], contains: [Value] = []) {
        self.lower = lower
        self.upper = upper
        self.excluded = excluded
        self.contains = contains
    }

    /// Both constraints at once: the tighter bound of each end (Firestore's total order across types), every
    /// exclusion and every membership.
    func intersected(with other: RulesFieldConstraint) -> RulesFieldConstraint {
        func tighter(_ a: Bound?, _ b: Bound?, lower: Bool) -> Bound? {
            guard let a else { return b }
            guard let b else { return a }
            let order = Value.compare(a.value, b.value)
            if order == 0 { return Bound(value: a.value, inclusive: a.inclusive && b.inclusive) }
            return (order > 0) == lower ? a : b
        }
        return RulesFieldConstraint(
            lower: tighter(lower, other.lower, lower: true), upper: tighter(upper, other.upper, lower: false),
            excluded: excluded + other.excluded, contains: contains + other.contains)
    }
}
