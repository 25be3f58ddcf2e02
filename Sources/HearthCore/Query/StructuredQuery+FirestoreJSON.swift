extension StructuredQuery {
    /// Decodes a REST `StructuredQuery` JSON object (`select`, `from`, `where`, `orderBy`, `startAt`, `endAt`,
    /// `offset`, `limit`; `limit` may be a number or `{"value": n}`) run under `parent` (root or a document path).
    ///
    /// Validates like Firestore: exactly one `from` selector; valid field paths; operator-specific operand rules
    /// (IN and ARRAY_CONTAINS_ANY need a non-empty `arrayValue` of at most 30 values, NOT_IN of at most 10; no
    /// nested arrays; at most one ARRAY_CONTAINS or ARRAY_CONTAINS_ANY per disjunction; at most one NOT_EQUAL,
    /// NOT_IN, IS_NOT_NULL or IS_NOT_NAN, and NOT_IN not with IN, ARRAY_CONTAINS_ANY or OR; at most 30
    /// disjunctions in disjunctive normal form; at most 10 inequality fields); an `orderBy` field may not be
    /// repeated; cursors have at most as many values as the normalized `orderBy`, and a `__name__` cursor value
    /// is a `referenceValue` of a document in the queried collection (any collection with that ID below `parent`
    /// for `allDescendants`); `offset` and `limit` are ≥ 0; `__name__` filters take `referenceValue` operands.
    ///
    /// `select` with no fields returns whole documents (as in Firestore); `__name__` in `select` adds nothing, so
    /// `select: {fields: [{fieldPath: "__name__"}]}` decodes to an empty ``projection`` (names only).
    /// - Parameter location: where the object sits, for error messages (`structuredQuery`).
    /// - Throws: `INVALID_ARGUMENT` naming the member at fault; unknown members in Google's
    ///   "Invalid JSON payload received. Unknown name …" form.
    public init(
        firestoreJSON json: JSONValue, at location: String, database: DatabaseName, parent: ResourcePath
    ) throws(HearthError) {
        try Self.checkParent(parent, database: database)
        let reader = try JSONObjectReader(
            json, at: location,
            allowed: ["select", "from", "where", "orderBy", "startAt", "endAt", "offset", "limit", "findNearest"])
        if reader["findNearest"] != nil {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: "findNearest"))': vector search (findNearest) is not supported by Hearth."
            )
        }
        let (collectionID, allDescendants) = try Self.selector(reader)
        self.init(parent: parent, collectionID: collectionID, allDescendants: allDescendants)
        if let filterJSON = reader["where"] {
            filter = try QueryFilter(firestoreJSON: filterJSON, at: reader.location(of: "where"), database: database)
        }
        for (index, item) in (try reader.array("orderBy") ?? []).enumerated() {
            orderBy.append(try Self.order(item, at: "\(reader.location(of: "orderBy"))[\(index)]"))
        }
        startAt = try reader["startAt"].map { json throws(HearthError) in
            try Self.cursor(json, at: reader.location(of: "startAt"))
        }
        endAt = try reader["endAt"].map { json throws(HearthError) in
            try Self.cursor(json, at: reader.location(of: "endAt"))
        }
        offset = try QueryJSONReading.int32(reader, "offset") ?? 0
        limit = try QueryJSONReading.int32(reader, "limit")
        projection = try reader["select"].flatMap { json throws(HearthError) in
            try Self.projection(json, at: reader.location(of: "select"))
        }
        try validate(database: database, at: location)
    }

    /// A query runs under the documents root or a document, whatever its encoding.
    static func checkParent(_ parent: ResourcePath, database: DatabaseName) throws(HearthError) {
        guard parent.segments.isEmpty || parent.isDocument else {
            throw .invalidArgument(
                "Invalid parent \"\(database.name(of: parent))\": a query runs under the database's documents root or under a document, not a collection."
            )
        }
    }

    /// Reads `from`: exactly one `CollectionSelector`.
    private static func selector(_ reader: JSONObjectReader) throws(HearthError) -> (String, Bool) {
        let location = reader.location(of: "from")
        let selectors = try reader.array("from") ?? []
        guard selectors.count == 1 else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a query selects exactly one collection, e.g. [{\"collectionId\": \"users\"}]; found \(selectors.count)."
            )
        }
        let selector = try JSONObjectReader(
            selectors[0], at: "\(location)[0]", allowed: ["collectionId", "allDescendants"])
        return try checkSelector(
            collectionID: try selector.string("collectionId"),
            allDescendants: try selector.bool("allDescendants") ?? false,
            at: selector.location(of: "collectionId"))
    }

    /// The rules of a `CollectionSelector`, whatever its encoding: one collection ID without `/`, or none for a
    /// kindless query over every collection (which needs `allDescendants`).
    static func checkSelector(
        collectionID: String?, allDescendants: Bool, at location: String
    ) throws(HearthError) -> (String, Bool) {
        guard let collectionID, !collectionID.isEmpty else {
            // A kindless query — every document below the parent, whatever its collection — is what the admin
            // clients' recursive deletes run.
            guard allDescendants else {
                throw .invalidArgument(
                    "Invalid value at '\(location)': a collectionId is required unless allDescendants is true (a kindless query over every collection below the parent)."
                )
            }
            return ("", true)
        }
        guard !collectionID.contains("/") else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a collectionId is one ID, without \"/\"; query a subcollection by running the query under its parent document."
            )
        }
        do {
            try ResourcePath.validate(id: collectionID, in: collectionID)
        } catch {
            throw .invalidArgument("Invalid value at '\(location)': \(error.message)")
        }
        return (collectionID, allDescendants)
    }

    /// The directions of an `Order`.
    private enum Direction: String, CaseIterable, ProtoEnum {
        case unspecified = "DIRECTION_UNSPECIFIED"
        case ascending = "ASCENDING"
        case descending = "DESCENDING"

        /// `google.firestore.v1.StructuredQuery.Direction` numbers.
        var protoNumber: Int64 {
            switch self {
            case .unspecified: 0
            case .ascending: 1
            case .descending: 2
            }
        }
    }

    /// Reads an `Order` (`{"field": {"fieldPath": …}, "direction": "DESCENDING"}`); the direction defaults to
    /// ascending.
    private static func order(_ json: JSONValue, at location: String) throws(HearthError) -> QueryOrder {
        let reader = try JSONObjectReader(json, at: location, allowed: ["field", "direction"])
        guard let fieldJSON = reader["field"] else {
            throw .invalidArgument(
                "Invalid value at '\(location)': an order needs field, e.g. {\"fieldPath\": \"age\"}.")
        }
        let field = try QueryJSONReading.fieldReference(fieldJSON, at: reader.location(of: "field"))
        let direction: Direction? = try QueryJSONReading.enumeration(
            reader, "direction", type: "StructuredQuery.Direction")
        return QueryOrder(field: field, descending: direction == .descending)
    }

    /// Reads a `Cursor` (`{"values": [...], "before": true}`).
    private static func cursor(_ json: JSONValue, at location: String) throws(HearthError) -> QueryCursor {
        let reader = try JSONObjectReader(json, at: location, allowed: ["values", "before"])
        var values: [Value] = []
        for (index, item) in (try reader.array("values") ?? []).enumerated() {
            values.append(try Value(queryOperandJSON: item, at: "\(reader.location(of: "values"))[\(index)]"))
        }
        return QueryCursor(values: values, before: try reader.bool("before") ?? false)
    }

    /// Reads a `Projection`; `nil` when it lists no fields (whole documents).
    private static func projection(_ json: JSONValue, at location: String) throws(HearthError) -> [FieldPath]? {
        let reader = try JSONObjectReader(json, at: location, allowed: ["fields"])
        let items = try reader.array("fields") ?? []
        if items.isEmpty { return nil }
        var paths: [FieldPath] = []
        for (index, item) in items.enumerated() {
            let path = try QueryJSONReading.fieldReference(item, at: "\(reader.location(of: "fields"))[\(index)]")
            if path != .documentName && !paths.contains(path) { paths.append(path) }
        }
        return paths
    }
}
