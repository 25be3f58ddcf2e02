extension StructuredQuery {
    /// The most disjunctions a query may have in disjunctive normal form, counting every value of an IN or
    /// ARRAY_CONTAINS_ANY; also the most values of one IN or ARRAY_CONTAINS_ANY.
    public static let maxDisjunctions = 30
    /// The most values of a NOT_IN.
    public static let maxNotInValues = 10
    /// The most distinct fields a query may constrain with range or inequality filters.
    public static let maxInequalityFields = 10

    /// Checks the rules that span the whole query (the shape of each member is checked while decoding): an
    /// ordered field at most once, the filter's limits, cursors that fit the orderings. `location` prefixes the
    /// members named in errors (`structuredQuery`; empty for top-level parameters such as a list's `orderBy`).
    public func validate(database: DatabaseName, at location: String) throws(HearthError) {
        let member = { (name: String) in location.isEmpty ? name : "\(location).\(name)" }
        if let filter { try Self.validate(filter, at: member("where")) }
        var ordered: Set<FieldPath> = []
        for (index, order) in orderBy.enumerated() where !ordered.insert(order.field).inserted {
            throw .invalidArgument(
                "Invalid value at '\(member("orderBy"))[\(index)]': the query already orders by \(order.field); a field may be ordered only once."
            )
        }
        if isKindless {
            // Only names exist in every collection, so a kindless query filters and orders by __name__ alone.
            let fields = Set(orderBy.map(\.field)).union((filter?.fields ?? []))
            if let other = fields.subtracting([.documentName]).sorted().first {
                throw .invalidArgument(
                    "Invalid value at '\(location)': a kindless query (allDescendants without a collectionId) filters and orders by __name__ only, not by \(other)."
                )
            }
            if orderBy.contains(where: \.descending) {
                throw .invalidArgument(
                    "Invalid value at '\(member("orderBy"))': a kindless query orders by __name__ ascending only.")
            }
        }
        let orders = normalizedOrderBy
        // Document names are unique, so nothing can order after them; Firestore refuses rather than ignores it,
        // also when an inequality filter's implicit ordering would land after an explicit __name__.
        if let key = orders.firstIndex(where: { $0.field == .documentName }), key < orders.count - 1 {
            let explicit = key < orderBy.count - 1
            throw .invalidArgument(
                "Invalid value at '\(member("orderBy"))\(explicit ? "[\(key + 1)]" : "")': order by clause cannot contain more fields after the key __name__\(explicit ? "" : " (an inequality filter on \(orders[key + 1].field) orders by that field implicitly, after the explicit ones)"); order by __name__ last, or not at all."
            )
        }
        for (name, cursor) in [("startAt", startAt), ("endAt", endAt)] {
            guard let cursor else { continue }
            try validate(cursor, orders: orders, at: member(name), database: database)
        }
    }

    private static func validate(_ filter: QueryFilter, at location: String) throws(HearthError) {
        let disjunctions = filter.disjunctionCount
        guard disjunctions <= maxDisjunctions else {
            throw .invalidArgument(
                "Invalid value at '\(location)': the filter has \(disjunctions == Int.max ? "too many" : String(disjunctions)) disjunctions in disjunctive normal form (each OR branch and each IN or ARRAY_CONTAINS_ANY value counts); Firestore allows at most \(maxDisjunctions)."
            )
        }
        var notEqualKinds: [String] = []
        var hasInOrAny = false
        var hasNotIn = false
        filter.forEachTerm { term in
            switch term {
            case .field(_, let op, _):
                if op == .notEqual || op == .notIn { notEqualKinds.append(op.rawValue) }
                if op == .in || op == .arrayContainsAny { hasInOrAny = true }
                if op == .notIn { hasNotIn = true }
            case .unary(_, let op) where op.isInequality:
                notEqualKinds.append(op.rawValue)
            default: break
            }
        }
        if notEqualKinds.count > 1 {
            throw .invalidArgument(
                "Invalid value at '\(location)': a query may have only one NOT_EQUAL, NOT_IN, IS_NOT_NULL or IS_NOT_NAN filter; this one has \(notEqualKinds.joined(separator: ", "))."
            )
        }
        if hasNotIn && (hasInOrAny || filter.containsDisjunction) {
            throw .invalidArgument(
                "Invalid value at '\(location)': NOT_IN cannot be combined with IN, ARRAY_CONTAINS_ANY or OR in the same query."
            )
        }
        for group in filter.disjunctiveNormalForm() {
            let arrayTerms = group.filter {
                if case .field(_, let op, _) = $0 { return op == .arrayContains || op == .arrayContainsAny }
                return false
            }
            if arrayTerms.count > 1 {
                throw .invalidArgument(
                    "Invalid value at '\(location)': a query may have at most one ARRAY_CONTAINS or ARRAY_CONTAINS_ANY filter per disjunction."
                )
            }
        }
        let inequalities = filter.inequalityFields.subtracting([.documentName])
        if !inequalities.isEmpty, !filter.inequalityFields.contains(.documentName), filter.hasNameEquality {
            throw .invalidArgument(
                "Invalid value at '\(location)': an equality filter on __name__ cannot be combined with inequality filters on other fields (\(inequalities.sorted().map(\.description).joined(separator: ", "))) unless __name__ is also filtered by an inequality."
            )
        }
        if inequalities.count > maxInequalityFields {
            throw .invalidArgument(
                "Invalid value at '\(location)': the filter has range or inequality filters on \(inequalities.count) fields; Firestore allows at most \(maxInequalityFields)."
            )
        }
    }

    private func validate(
        _ cursor: QueryCursor, orders: [QueryOrder], at location: String, database: DatabaseName
    ) throws(HearthError) {
        // Firestore counts the orderings the request states, not the implicit ones: clients that position a cursor
        // on a document send every ordering in effect (Firebase's SDKs and Hearth's state them all).
        guard cursor.values.count <= orderBy.count else {
            throw .invalidArgument(
                "Invalid value at '\(location).values': the cursor has \(cursor.values.count) values but the query states only \(orderBy.count) orderBy clauses\(orderBy.isEmpty ? "" : " (\(orderBy.map(\.field.description).joined(separator: ", ")))"); give at most one value per orderBy clause."
            )
        }
        for (index, (value, order)) in zip(cursor.values, orders).enumerated() where order.field == .documentName {
            let valueLocation = "\(location).values[\(index)]"
            guard case .reference(let name) = value else {
                throw .invalidArgument(
                    "Invalid value at '\(valueLocation)': the cursor value for __name__ must be a referenceValue naming a path in \(database.name(of: ResourcePath(segments: [])))."
                )
            }
            // Any path of this database positions a cursor, as in Firestore: a collection group is scoped to one
            // parent by `startAt(parent)`/`endAt(parent + "0")`, and a plain query's cursor outside its collection
            // leaves nothing to return (``QueryMatcher/isWithinCursors(path:fields:query:)``).
            // The IDs are not held to a document's rules: a cursor only positions, and the admin clients position
            // recursive deletes with `__id-9223372036854775808__`, the least numeric ID.
            let root = database.documentsRoot
            guard name == root || name.hasPrefix(root + "/") else {
                throw .invalidArgument(
                    "Invalid value at '\(valueLocation)': the cursor value \"\(name.prefix(200))\" is not under \"\(root)\"."
                )
            }
        }
    }
}

extension QueryFilter {
    /// Every field the filter names.
    var fields: Set<FieldPath> {
        var fields: Set<FieldPath> = []
        forEachTerm { term in
            switch term {
            case .field(let path, _, _), .unary(let path, _): fields.insert(path)
            default: break
            }
        }
        return fields
    }

    /// Whether any term is `__name__ ==`.
    var hasNameEquality: Bool {
        var found = false
        forEachTerm { term in
            if case .field(.documentName, .equal, _) = term { found = true }
        }
        return found
    }

    /// Whether the filter has an OR of more than one filter anywhere.
    var containsDisjunction: Bool {
        switch self {
        case .field, .unary: return false
        case .or(let filters): return filters.count > 1 || filters.contains { $0.containsDisjunction }
        case .and(let filters): return filters.contains { $0.containsDisjunction }
        }
    }
}
