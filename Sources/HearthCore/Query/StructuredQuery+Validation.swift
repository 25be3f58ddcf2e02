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
        if inequalities.count > maxInequalityFields {
            throw .invalidArgument(
                "Invalid value at '\(location)': the filter has range or inequality filters on \(inequalities.count) fields; Firestore allows at most \(maxInequalityFields)."
            )
        }
    }

    private func validate(
        _ cursor: QueryCursor, orders: [QueryOrder], at location: String, database: DatabaseName
    ) throws(HearthError) {
        guard cursor.values.count <= orders.count else {
            throw .invalidArgument(
                "Invalid value at '\(location).values': the cursor has \(cursor.values.count) values but the query orders by only \(orders.count) fields (\(orders.map(\.field.description).joined(separator: ", ")))."
            )
        }
        for (index, (value, order)) in zip(cursor.values, orders).enumerated() where order.field == .documentName {
            let valueLocation = "\(location).values[\(index)]"
            let collection =
                allDescendants
                ? "a document in a collection \"\(collectionID)\" below \"\(database.name(of: parent))\""
                : "a document of \(database.name(of: collectionPath))"
            guard case .reference(let name) = value else {
                throw .invalidArgument(
                    "Invalid value at '\(valueLocation)': the cursor value for __name__ must be a referenceValue naming \(collection)."
                )
            }
            let path: ResourcePath
            do {
                path = try database.path(fromName: name)
            } catch {
                throw .invalidArgument("Invalid value at '\(valueLocation)': \(error.message)")
            }
            guard contains(path: path) else {
                throw .invalidArgument(
                    "Invalid value at '\(valueLocation)': the cursor value for __name__ must name \(collection); \"\(name.prefix(200))\" does not."
                )
            }
        }
    }
}

extension QueryFilter {
    /// Whether the filter has an OR of more than one filter anywhere.
    var containsDisjunction: Bool {
        switch self {
        case .field, .unary: return false
        case .or(let filters): return filters.count > 1 || filters.contains { $0.containsDisjunction }
        case .and(let filters): return filters.contains { $0.containsDisjunction }
        }
    }
}
