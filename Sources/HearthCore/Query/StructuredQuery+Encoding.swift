extension StructuredQuery {
    /// The REST JSON of this query (round-trips through ``init(firestoreJSON:at:database:parent:)``) — the SDK
    /// sends queries with it. `parent` is not part of it: it travels in the request's URL.
    ///
    /// An empty ``projection`` is written as `select: {fields: [{fieldPath: "__name__"}]}`, Firestore's way to
    /// ask for names only.
    public func firestoreJSON(database: DatabaseName) -> JSONValue {
        var members: [String: JSONValue] = [:]
        var selector: [String: JSONValue] = ["collectionId": .string(collectionID)]
        if allDescendants { selector["allDescendants"] = true }
        members["from"] = [.object(selector)]
        if let filter { members["where"] = filter.firestoreJSON }
        if !orderBy.isEmpty {
            members["orderBy"] = .array(
                orderBy.map { order in
                    ["field": Self.reference(order.field), "direction": order.descending ? "DESCENDING" : "ASCENDING"]
                })
        }
        if let startAt { members["startAt"] = startAt.firestoreJSON }
        if let endAt { members["endAt"] = endAt.firestoreJSON }
        if offset != 0 { members["offset"] = .integer(Int64(offset)) }
        if let limit { members["limit"] = .integer(Int64(limit)) }
        if let projection {
            let paths = projection.isEmpty ? [FieldPath.documentName] : projection
            members["select"] = ["fields": .array(paths.map(Self.reference))]
        }
        return .object(members)
    }

    /// A `FieldReference`.
    static func reference(_ path: FieldPath) -> JSONValue {
        ["fieldPath": .string(path.description)]
    }
}

extension QueryCursor {
    /// The REST `Cursor` JSON.
    var firestoreJSON: JSONValue {
        ["values": .array(values.map(\.queryJSON)), "before": .bool(before)]
    }
}

extension QueryFilter {
    /// The REST `Filter` JSON.
    var firestoreJSON: JSONValue {
        switch self {
        case .field(let path, let op, let value):
            return [
                "fieldFilter": [
                    "field": StructuredQuery.reference(path), "op": .string(op.rawValue), "value": value.queryJSON,
                ]
            ]
        case .unary(let path, let op):
            return ["unaryFilter": ["field": StructuredQuery.reference(path), "op": .string(op.rawValue)]]
        case .and(let filters):
            return ["compositeFilter": ["op": "AND", "filters": .array(filters.map(\.firestoreJSON))]]
        case .or(let filters):
            return ["compositeFilter": ["op": "OR", "filters": .array(filters.map(\.firestoreJSON))]]
        }
    }
}
