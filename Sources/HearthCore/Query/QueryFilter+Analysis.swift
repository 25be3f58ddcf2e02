extension UnaryOperator {
    /// Whether the operator is an inequality (`IS_NOT_NULL`, `IS_NOT_NAN` are `!= null`, `!= NaN`), which forces
    /// an ordering on its field.
    public var isInequality: Bool { self == .isNotNull || self == .isNotNaN }
}

extension QueryFilter {
    /// Disjunctive normal form: an OR of AND-groups of simple terms (field or unary filters). IN stays one term
    /// (the planner decides), as does ARRAY_CONTAINS_ANY. Nested ANDs flatten; ORs distribute.
    ///
    /// An empty AND yields one empty group (every document); an empty OR yields no groups (no document). The
    /// result can grow exponentially with nesting; queries decoded from JSON are checked to stay within
    /// Firestore's limit of 30 disjunctions first.
    public func disjunctiveNormalForm() -> [[QueryFilter]] {
        switch self {
        case .field, .unary:
            return [[self]]
        case .or(let filters):
            return filters.flatMap { $0.disjunctiveNormalForm() }
        case .and(let filters):
            var groups: [[QueryFilter]] = [[]]
            for filter in filters {
                let terms = filter.disjunctiveNormalForm()
                groups = groups.flatMap { group in terms.map { group + $0 } }
            }
            return groups
        }
    }

    /// The fields this filter constrains with inequalities (`<`, `<=`, `>`, `>=`, `!=`, NOT_IN, IS_NOT_NULL,
    /// IS_NOT_NAN), anywhere in the filter, including inside ORs. ``FieldPath/documentName`` is included when
    /// `__name__` is filtered by an inequality.
    public var inequalityFields: Set<FieldPath> {
        var fields: Set<FieldPath> = []
        forEachTerm { term in
            switch term {
            case .field(let path, let op, _) where op.isInequality: fields.insert(path)
            case .unary(let path, let op) where op.isInequality: fields.insert(path)
            default: break
            }
        }
        return fields
    }

    /// How many disjunctions Firestore counts for this filter in disjunctive normal form, where every value of an
    /// IN or ARRAY_CONTAINS_ANY counts as its own disjunction. Computed without expanding the filter and
    /// saturating at `Int.max`.
    public var disjunctionCount: Int {
        switch self {
        case .field(_, let op, let value):
            guard op == .in || op == .arrayContainsAny, let elements = value.arrayElements else { return 1 }
            return max(elements.count, 1)
        case .unary:
            return 1
        case .or(let filters):
            return filters.reduce(0) { total, filter in
                let (sum, overflow) = total.addingReportingOverflow(filter.disjunctionCount)
                return overflow ? Int.max : sum
            }
        case .and(let filters):
            return filters.reduce(1) { total, filter in
                let (product, overflow) = total.multipliedReportingOverflow(by: filter.disjunctionCount)
                return overflow ? Int.max : product
            }
        }
    }

    /// Calls `body` with every field and unary filter, depth first, in order.
    func forEachTerm(_ body: (QueryFilter) -> Void) {
        switch self {
        case .field, .unary: body(self)
        case .and(let filters), .or(let filters): for filter in filters { filter.forEachTerm(body) }
        }
    }
}
