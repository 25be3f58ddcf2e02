import HearthCore

/// Where a query view is filed in the ``TargetIndex``: under its collection (or collection group), and — when
/// every branch of its filter pins a field to a value — under those field/value pairs, so that a write only
/// reaches the views whose pinned value the document had before or has after.
struct IndexPlan: Sendable, Equatable {
    /// The set of documents a query ranges over.
    enum Scope: Hashable, Sendable {
        /// One collection, by path.
        case collection(ResourcePath)
        /// Every collection with this ID (below the query's parent).
        case group(String)
    }

    let scope: Scope
    /// The field/value pairs the view is filed under; `nil` files it with the views every write of the scope must
    /// be checked against.
    let keys: [Key]?

    struct Key: Hashable, Sendable {
        let field: FieldPath
        let value: IndexValue
    }

    init(scope: Scope, keys: [Key]?) {
        self.scope = scope
        self.keys = keys
    }

    /// The plan for a (normalized) query: for each OR-branch of its filter, the first `==`, `IN` or `IS_NULL` term
    /// on a field with indexable operands; unindexed when some branch has none.
    init(query: StructuredQuery) {
        scope = query.allDescendants ? .group(query.collectionID) : .collection(query.collectionPath)
        guard let filter = query.filter else {
            keys = nil
            return
        }
        var keys: [Key] = []
        var seen: Set<Key> = []
        for group in filter.disjunctiveNormalForm() {
            guard let groupKeys = group.lazy.compactMap(Self.keys(of:)).first else {
                self.keys = nil
                return
            }
            for key in groupKeys where seen.insert(key).inserted { keys.append(key) }
        }
        self.keys = keys.isEmpty ? nil : keys
    }

    /// The keys one filter term pins, or `nil` when it pins none.
    private static func keys(of term: QueryFilter) -> [Key]? {
        switch term {
        case .field(let field, .equal, let operand) where field != .documentName:
            return IndexValue(operand).map { [Key(field: field, value: $0)] }
        case .field(let field, .in, let operand) where field != .documentName:
            guard let elements = operand.arrayElements, !elements.isEmpty else { return nil }
            var keys: [Key] = []
            for element in elements {
                guard let value = IndexValue(element) else { return nil }
                keys.append(Key(field: field, value: value))
            }
            return keys
        case .unary(let field, .isNull) where field != .documentName:
            return [Key(field: field, value: .null)]
        default:
            return nil
        }
    }
}
