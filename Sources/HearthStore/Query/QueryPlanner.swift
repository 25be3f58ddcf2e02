package import HearthCore

/// Chooses index scans for a normalized query, as Firestore does: automatic single-field indexes serve
/// filters and orderings on one field, equality filters on several fields are merged by document ID, and
/// anything else needs a declared composite index — without one the query fails with `FAILED_PRECONDITION`
/// naming the index to declare. No plan ever reads a whole collection to filter it.
package struct QueryPlanner {
    let query: StructuredQuery
    let indexes: [IndexCatalog.Entry]
    /// Development mode: a query whose composite index is missing (or still building) is answered by an
    /// unindexed scan instead of `FAILED_PRECONDITION`, and the plan names the index it needed.
    package var scansWhenIndexMissing = false
    /// Hears of each composite index a query is refused for (outside development mode).
    package var refusedForWant: (IndexDefinition) -> Void = { _ in }

    /// One plan per AND-group of the filter's disjunctive normal form (OR queries merge several).
    package init(query: StructuredQuery, indexes: [IndexCatalog.Entry]) {
        self.query = query
        self.indexes = indexes
    }

    package func plan() throws(HearthError) -> [ConjunctPlan] {
        let groups = query.filter?.disjunctiveNormalForm() ?? [[]]
        var plans: [ConjunctPlan] = []
        for group in groups { plans += try plan(group, expansions: 0) }
        return plans
    }

    private var orderFields: [QueryOrder] { Array(query.orderBy.dropLast()) }
    private var nameDescending: Bool { query.orderBy.last?.descending ?? false }
    private var hasCursors: Bool { query.startAt != nil || query.endAt != nil }

    private func plan(_ terms: [QueryFilter], expansions: Int) throws(HearthError) -> [ConjunctPlan] {
        if let plan = try direct(terms) { return [plan] }
        // `in` and `array-contains-any` can't prefix a composite index; split them into equalities and merge.
        if expansions < 30, let index = terms.firstIndex(where: Self.isMultiValued),
            case .field(let field, let op, let list) = terms[index]
        {
            var plans: [ConjunctPlan] = []
            for value in list.matchableElements {
                var expanded = terms
                expanded[index] = .field(field, op == .in ? .equal : .arrayContains, value)
                plans += try plan(expanded, expansions: expansions + 1)
            }
            return plans
        }
        if scansWhenIndexMissing { return [ConjunctPlan(scan: .unindexed(needing: neededIndex(terms)), exact: false)] }
        throw missingIndex(terms)
    }

    private func direct(_ terms: [QueryFilter]) throws(HearthError) -> ConjunctPlan? {
        let nameTerms = terms.filter { Self.field(of: $0) == .documentName }
        let fieldTerms = terms.filter { Self.field(of: $0) != .documentName }
        if let lookup = nameLookup(nameTerms) { return ConjunctPlan(scan: .documents(lookup), exact: false) }
        if query.allDescendants {
            if fieldTerms.isEmpty && orderFields.isEmpty {
                return ConjunctPlan(
                    scan: .groupNames(descending: nameDescending), exact: nameTerms.isEmpty && !hasCursors)
            }
            return composite(fieldTerms, residual: !nameTerms.isEmpty)
        }
        if fieldTerms.isEmpty && orderFields.isEmpty {
            return ConjunctPlan(
                scan: .names(descending: nameDescending, bounds: nameBounds(nameTerms)),
                exact: nameTerms.isEmpty && !hasCursors)
        }
        let fields = Set(fieldTerms.compactMap(Self.field(of:)) + orderFields.map(\.field))
        // A single-field index orders ties by name in the field's own direction, as Firestore's do.
        if fields.count == 1, let field = fields.first, orderFields.map(\.field) == [field],
            orderFields[0].descending == nameDescending
        {
            let component = ComponentRanges(prefix: [], descending: false)
            var ranges = RangeSet.everything(component)
            var exact = nameTerms.isEmpty && !hasCursors
            for term in fieldTerms {
                if let allowed = RangeSet.allowed(by: term, component: component) {
                    ranges = ranges.intersection(allowed)
                    if !Self.isExactRange(term) { exact = false }
                } else {
                    exact = false  // array-contains on the ordered field: checked per document
                }
            }
            return ConjunctPlan(
                scan: .field(
                    name: field.description, kind: .value, ranges: ranges, descending: orderFields[0].descending),
                exact: exact)
        }
        if orderFields.isEmpty, !fieldTerms.isEmpty, let streams = idStreams(fieldTerms) {
            let plan: IDPlan = streams.count == 1 ? streams[0] : .intersection(streams)
            let exactPoint: Bool
            if case .point = plan { exactPoint = true } else { exactPoint = false }
            return ConjunctPlan(
                scan: .ids(plan, descending: nameDescending), exact: exactPoint && nameTerms.isEmpty && !hasCursors)
        }
        return composite(fieldTerms, residual: !nameTerms.isEmpty)
    }

    /// `__name__ ==` / `__name__ in` name their documents outright.
    private func nameLookup(_ terms: [QueryFilter]) -> [ResourcePath]? {
        for term in terms {
            guard case .field(_, let op, let value) = term else { continue }
            let values: [Value]
            switch op {
            case .equal: values = [value]
            case .in: values = value.arrayElements ?? []
            default: continue
            }
            let paths = values.compactMap { value -> ResourcePath? in
                guard case .reference(let name) = value else { return nil }
                let parts = name.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count > 5 else { return nil }
                return ResourcePath(segments: parts.dropFirst(5).map(String.init))
            }
            return paths
        }
        return nil
    }

    /// The ID range `__name__` comparisons allow in the queried collection (inclusive; the matcher settles the
    /// edges), so a name range is a seek rather than a scan from the start.
    private func nameBounds(_ terms: [QueryFilter]) -> ClosedIDRange {
        var range = ClosedIDRange()
        let collection = query.parent.appending(query.collectionID)
        for term in terms {
            guard case .field(_, let op, .reference(let name)) = term else { continue }
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count > 5 else { continue }
            let path = ResourcePath(segments: parts.dropFirst(5).map(String.init))
            guard path.parent == collection else { continue }
            let id = path.lastSegment
            switch op {
            case .greaterThan, .greaterThanOrEqual:
                if range.lower.map({ Value.compareBytes(id.utf8, $0.utf8) > 0 }) ?? true { range.lower = id }
            case .lessThan, .lessThanOrEqual:
                if range.upper.map({ Value.compareBytes(id.utf8, $0.utf8) < 0 }) ?? true { range.upper = id }
            default:
                break
            }
        }
        return range
    }

    /// ID-ordered streams for terms that each pin a field to one or a few keys.
    private func idStreams(_ terms: [QueryFilter]) -> [IDPlan]? {
        var streams: [IDPlan] = []
        for term in terms {
            let name = Self.field(of: term)?.description ?? ""
            switch term {
            case .field(_, .equal, let value):
                streams.append(.point(field: name, kind: .value, key: IndexKey.encode(value)))
            case .field(_, .in, let list):
                streams.append(
                    .union(list.matchableElements.map { .point(field: name, kind: .value, key: IndexKey.encode($0)) }))
            case .field(_, .arrayContains, let value):
                let key = IndexKey.encode(value)
                streams.append(value.isNullOrNaN ? .union([]) : .point(field: name, kind: .arrayElement, key: key))
            case .field(_, .arrayContainsAny, let list):
                streams.append(
                    .union(
                        list.matchableElements.map {
                            .point(field: name, kind: .arrayElement, key: IndexKey.encode($0))
                        }))
            case .unary(_, .isNull):
                streams.append(.point(field: name, kind: .value, key: IndexKey.encode(.null)))
            case .unary(_, .isNaN):
                streams.append(.point(field: name, kind: .value, key: IndexKey.encode(.double(.nan))))
            default:
                return nil
            }
        }
        return streams
    }

    /// A declared composite index whose fields are the equality-filtered fields (any order), then the query's
    /// orderings (all in the declared directions, or all reversed).
    private func composite(_ terms: [QueryFilter], residual: Bool) -> ConjunctPlan? {
        let scope: IndexDefinition.Scope = query.allDescendants ? .collectionGroup : .collection
        var equalities: [FieldPath: Value] = [:]
        var contains: (FieldPath, Value)?
        var others: [QueryFilter] = []
        let orders = orderFields
        // A filter on an ordered field is a range over that field's index column, never a prefix of its own:
        // `missingIndex` leaves ordered fields out of the prefix, so the index it names must serve the query.
        let ordered = Set(orders.map(\.field))
        for term in terms {
            switch term {
            case .field(let field, .equal, let value) where equalities[field] == nil && !ordered.contains(field):
                equalities[field] = value
            case .unary(let field, .isNull) where equalities[field] == nil && !ordered.contains(field):
                equalities[field] = .null
            case .unary(let field, .isNaN) where equalities[field] == nil && !ordered.contains(field):
                equalities[field] = .double(.nan)
            case .field(let field, .arrayContains, let value) where contains == nil && !ordered.contains(field):
                contains = (field, value)
            default: others.append(term)
            }
        }
        candidates: for entry in indexes where entry.ready && entry.definition.scope == scope {
            let fields = entry.definition.fields
            let prefixCount = fields.count - orders.count
            guard prefixCount >= 0 else { continue }
            // The index serves the query's whole order (fields, then __name__) forwards or backwards.
            let reversed = entry.definition.nameDescending != nameDescending
            for (field, order) in zip(fields[prefixCount...], orders) {
                guard field.path == order.field, field.mode != .arrayContains else { continue candidates }
                if ((field.mode == .descending) != order.descending) != reversed { continue candidates }
            }
            let prefixFields = fields[..<prefixCount]
            guard prefixFields.count == equalities.count + (contains == nil ? 0 : 1) else { continue }
            var prefix: [UInt8] = []
            for field in prefixFields {
                if field.mode == .arrayContains {
                    guard let contains, contains.0 == field.path else { continue candidates }
                    prefix += IndexKey.encode(contains.1)
                } else {
                    guard let value = equalities[field.path] else { continue candidates }
                    let encoded = IndexKey.encode(value)
                    prefix += field.mode == .descending ? encoded.map { ~$0 } : encoded
                }
            }
            var ranges = RangeSet([ComponentRanges(prefix: prefix, descending: false).everything])
            var exact = !residual && !hasCursors
            if let first = orders.first, let firstField = fields.dropFirst(prefixCount).first {
                let component = ComponentRanges(prefix: prefix, descending: firstField.mode == .descending)
                for term in others {
                    if Self.field(of: term) == first.field,
                        let allowed = RangeSet.allowed(by: term, component: component)
                    {
                        ranges = ranges.intersection(allowed)
                        if !Self.isExactRange(term) { exact = false }
                    } else {
                        exact = false
                    }
                }
            } else if !others.isEmpty {
                exact = false
            }
            let scopeValue =
                scope == .collection ? query.parent.appending(query.collectionID).description : query.collectionID
            // Other parents share the scope.
            if query.allDescendants && !query.parent.segments.isEmpty { exact = false }
            return ConjunctPlan(
                scan: .composite(
                    indexID: entry.id, scope: scopeValue, prefix: prefix, ranges: ranges, descending: reversed,
                    definition: entry.definition),
                exact: exact)
        }
        return nil
    }

    private func missingIndex(_ terms: [QueryFilter]) -> HearthError {
        let definition = neededIndex(terms)
        refusedForWant(definition)
        if let building = indexes.first(where: { $0.definition == definition && !$0.ready }) {
            return .failedPrecondition(
                "The query requires an index that is still building (index #\(building.id), \(definition)); retry shortly."
            )
        }
        return .failedPrecondition(
            "The query requires an index. Add it to the \"indexes\" list of hearth.indexes.json in the data directory (or the file given with --indexes) and restart: \(definition)"
        )
    }

    /// The composite index that serves an AND-group the other plans cannot.
    private func neededIndex(_ terms: [QueryFilter]) -> IndexDefinition {
        var fields: [IndexDefinition.Field] = []
        for term in terms {
            guard let field = Self.field(of: term), field != .documentName else { continue }
            if orderFields.contains(where: { $0.field == field }) || fields.contains(where: { $0.path == field }) {
                continue
            }
            switch term {
            case .field(_, .arrayContains, _), .field(_, .arrayContainsAny, _):
                fields.append(.init(path: field, mode: .arrayContains))
            default: fields.append(.init(path: field, mode: .ascending))
            }
        }
        fields += orderFields.map { .init(path: $0.field, mode: $0.descending ? .descending : .ascending) }
        return IndexDefinition(
            collectionID: query.collectionID, scope: query.allDescendants ? .collectionGroup : .collection,
            fields: fields,
            nameDescending: nameDescending)
    }

    static func field(of term: QueryFilter) -> FieldPath? {
        switch term {
        case .field(let field, _, _), .unary(let field, _): return field
        case .and, .or: return nil
        }
    }

    private static func isMultiValued(_ term: QueryFilter) -> Bool {
        if case .field(_, let op, _) = term { return op == .in || op == .arrayContainsAny }
        return false
    }

    /// Whether a term's key ranges hold exactly its matches (`!=`, `not-in` and the `IS_NOT_*` forms also
    /// exclude null and missing values per document, so their ranges are only a superset).
    private static func isExactRange(_ term: QueryFilter) -> Bool {
        switch term {
        case .field(_, let op, _):
            return [.equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .in].contains(op)
        case .unary(_, let op):
            return op == .isNull || op == .isNaN
        default:
            return false
        }
    }
}
