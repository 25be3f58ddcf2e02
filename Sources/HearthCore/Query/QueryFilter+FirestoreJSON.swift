extension QueryFilter {
    /// The composite operators of a `CompositeFilter`.
    enum CompositeOperator: String, CaseIterable, ProtoEnum {
        case and = "AND"
        case or = "OR"

        /// `google.firestore.v1.StructuredQuery.CompositeFilter.Operator` numbers.
        var protoNumber: Int64 { self == .and ? 1 : 2 }
    }

    /// Decodes a REST `Filter`: exactly one of `compositeFilter`, `fieldFilter`, `unaryFilter`. Checks the shape
    /// of each operand; rules that span the whole query are checked by ``StructuredQuery``.
    init(firestoreJSON json: JSONValue, at location: String, database: DatabaseName) throws(HearthError) {
        let kinds = ["compositeFilter", "fieldFilter", "unaryFilter"]
        let reader = try JSONObjectReader(json, at: location, allowed: Set(kinds))
        let present = kinds.filter { reader[$0] != nil }
        guard present.count == 1, let kind = present.first else {
            throw .invalidArgument(
                present.isEmpty
                    ? "Invalid value at '\(location)': a filter needs one of compositeFilter, fieldFilter or unaryFilter."
                    : "Invalid JSON payload received. Oneof field 'filter_type' is already set at '\(location)': give only one of \(present.joined(separator: ", "))."
            )
        }
        let member = reader.location(of: kind)
        switch kind {
        case "compositeFilter": self = try Self.composite(reader[kind]!, at: member, database: database)
        case "fieldFilter": self = try Self.field(reader[kind]!, at: member, database: database)
        default: self = try Self.unary(reader[kind]!, at: member)
        }
    }

    private static func composite(
        _ json: JSONValue, at location: String, database: DatabaseName
    ) throws(HearthError) -> QueryFilter {
        let reader = try JSONObjectReader(json, at: location, allowed: ["op", "filters"])
        guard
            let op: CompositeOperator = try QueryJSONReading.enumeration(
                reader, "op", type: "StructuredQuery.CompositeFilter.Operator")
        else {
            throw .invalidArgument("Invalid value at '\(location)': a compositeFilter needs op, AND or OR.")
        }
        let items = try reader.array("filters") ?? []
        guard !items.isEmpty else {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: "filters"))': a compositeFilter needs at least one filter.")
        }
        var filters: [QueryFilter] = []
        filters.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            filters.append(
                try QueryFilter(
                    firestoreJSON: item, at: "\(reader.location(of: "filters"))[\(index)]", database: database))
        }
        return op == .and ? .and(filters) : .or(filters)
    }

    private static func field(
        _ json: JSONValue, at location: String, database: DatabaseName
    ) throws(HearthError) -> QueryFilter {
        let reader = try JSONObjectReader(json, at: location, allowed: ["field", "op", "value"])
        guard let fieldJSON = reader["field"] else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a fieldFilter needs field, e.g. {\"fieldPath\": \"age\"}.")
        }
        let field = try QueryJSONReading.fieldReference(fieldJSON, at: reader.location(of: "field"))
        guard
            let op: FieldOperator = try QueryJSONReading.enumeration(
                reader, "op", type: "StructuredQuery.FieldFilter.Operator")
        else {
            throw .invalidArgument("Invalid value at '\(location)': a fieldFilter needs op, e.g. \"EQUAL\".")
        }
        guard let valueJSON = reader["value"] else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a fieldFilter needs value, e.g. {\"integerValue\": \"1\"}.")
        }
        let valueLocation = reader.location(of: "value")
        let value = try operand(valueJSON, of: op, at: valueLocation)
        try checkOperand(value, of: op, on: field, at: valueLocation, database: database)
        return .field(field, op, value)
    }

    /// A filter's operand. The list of `IN`, `NOT_IN` and `ARRAY_CONTAINS_ANY` may hold arrays (`regions in
    /// [["west"], ["east"]]`), which a stored array value may not, so its elements are decoded one by one.
    private static func operand(
        _ json: JSONValue, of op: FieldOperator, at location: String
    ) throws(HearthError)
        -> Value
    {
        guard op == .in || op == .notIn || op == .arrayContainsAny, case .object(let object) = json, object.count == 1,
            case .object(let array)? = object["arrayValue"], Set(array.keys).isSubset(of: ["values"])
        else {
            return try Value(queryOperandJSON: json, at: location)
        }
        guard case .array(let items)? = array["values"] else { return try Value(queryOperandJSON: json, at: location) }
        var elements: [Value] = []
        for (index, item) in items.enumerated() {
            elements.append(try Value(queryOperandJSON: item, at: "\(location).arrayValue.values[\(index)]"))
        }
        return .array(elements)
    }

    private static func unary(_ json: JSONValue, at location: String) throws(HearthError) -> QueryFilter {
        let reader = try JSONObjectReader(json, at: location, allowed: ["field", "op"])
        guard
            let op: UnaryOperator = try QueryJSONReading.enumeration(
                reader, "op", type: "StructuredQuery.UnaryFilter.Operator")
        else {
            throw .invalidArgument("Invalid value at '\(location)': a unaryFilter needs op, e.g. \"IS_NULL\".")
        }
        guard let fieldJSON = reader["field"] else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a unaryFilter needs field, e.g. {\"fieldPath\": \"age\"}.")
        }
        let field = try QueryJSONReading.fieldReference(fieldJSON, at: reader.location(of: "field"))
        guard field != .documentName else {
            throw .invalidArgument(
                "Invalid value at '\(location)': \(op.rawValue) cannot be applied to __name__; a document's name is never null or NaN."
            )
        }
        return .unary(field, op)
    }

    /// The operand rules of one operator (shared with the protobuf decoder).
    static func checkOperand(
        _ value: Value, of op: FieldOperator, on field: FieldPath, at location: String, database: DatabaseName
    ) throws(HearthError) {
        switch op {
        case .in, .notIn, .arrayContainsAny:
            guard let elements = value.arrayElements, !elements.isEmpty else {
                throw .invalidArgument(
                    "Invalid value at '\(location)': \(op.rawValue) needs a non-empty arrayValue of the values to match."
                )
            }
            let limit = op == .notIn ? StructuredQuery.maxNotInValues : StructuredQuery.maxDisjunctions
            guard elements.count <= limit else {
                throw .invalidArgument(
                    "Invalid value at '\(location)': \(op.rawValue) takes at most \(limit) values, got \(elements.count)."
                )
            }
            if field == .documentName {
                guard op != .arrayContainsAny else {
                    throw .invalidArgument(
                        "Invalid value at '\(location)': ARRAY_CONTAINS_ANY cannot be applied to __name__.")
                }
                for (index, element) in elements.enumerated() {
                    try checkName(element, at: "\(location)[\(index)]", database: database)
                }
            }
        case .arrayContains:
            guard field != .documentName else {
                throw .invalidArgument("Invalid value at '\(location)': ARRAY_CONTAINS cannot be applied to __name__.")
            }
            if value.arrayElements != nil {
                throw .invalidArgument(
                    "Invalid value at '\(location)': ARRAY_CONTAINS takes one value, not an array; use ARRAY_CONTAINS_ANY to match any of several values."
                )
            }
        default:
            if field == .documentName { try checkName(value, at: location, database: database) }
        }
    }

    /// A `__name__` operand: a reference to a document of this database.
    private static func checkName(_ value: Value, at location: String, database: DatabaseName) throws(HearthError) {
        guard case .reference(let name) = value else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a filter on __name__ takes a referenceValue, e.g. {\"referenceValue\": \"\(database.documentsRoot)/users/alice\"}."
            )
        }
        do {
            _ = try database.path(fromName: name)
        } catch {
            throw .invalidArgument("Invalid value at '\(location)': \(error.message)")
        }
    }
}
