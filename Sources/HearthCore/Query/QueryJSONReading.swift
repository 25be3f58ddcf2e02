/// Readers for the small messages a structured query is built from (`FieldReference`, enums, `Int32Value`).
enum QueryJSONReading {
    /// The largest `int32` a query's `offset` or `limit` may hold.
    static let maxInt32 = Int64(Int32.max)

    /// Reads a `FieldReference` (`{"fieldPath": "a.b"}`) as a field path a query may name: `__name__`, or a
    /// path whose every segment is a valid field name.
    static func fieldReference(_ json: JSONValue, at location: String) throws(HearthError) -> FieldPath {
        let reader = try JSONObjectReader(json, at: location, allowed: ["fieldPath"])
        guard let text = try reader.string("fieldPath") else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a field reference needs a fieldPath, e.g. {\"fieldPath\": \"address.city\"}."
            )
        }
        return try fieldPath(text, at: reader.location(of: "fieldPath"))
    }

    /// Parses a field path a query may name: `__name__`, or dotted field names that are not reserved.
    static func fieldPath(_ text: String, at location: String) throws(HearthError) -> FieldPath {
        let path: FieldPath
        do {
            path = try FieldPath(parsing: text)
        } catch {
            throw .invalidArgument("Invalid value at '\(location)': \(error.message)")
        }
        if path == .documentName { return path }
        for segment in path.segments {
            try Value.validateFieldName(segment, at: location)
        }
        return path
    }

    /// Reads an enum member given by its proto name or number.
    static func enumeration<E: ProtoEnum>(
        _ reader: JSONObjectReader, _ name: String, type: String
    ) throws(HearthError) -> E? {
        guard let json = reader[name] else { return nil }
        let names = E.allCases.map(\.rawValue)
        guard let value = E(protoJSON: json) else {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: name))' (type.googleapis.com/google.firestore.v1.\(type)), \(json.jsonString.prefix(64)): expected one of \(names.joined(separator: ", "))."
            )
        }
        return value
    }

    /// Reads a non-negative `int32` given as a number, a decimal string or a wrapper `{"value": n}`.
    static func int32(_ reader: JSONObjectReader, _ name: String) throws(HearthError) -> Int? {
        guard let json = reader[name] else { return nil }
        let location = reader.location(of: name)
        let number: Int64?
        if case .object = json {
            number = try JSONObjectReader(json, at: location, allowed: ["value"]).integer("value")
        } else {
            number = try reader.integer(name)
        }
        guard let number else { return nil }
        guard number >= 0 else {
            throw .invalidArgument("Invalid value at '\(location)': \(name) must be zero or more, got \(number).")
        }
        guard number <= maxInt32 else {
            throw .invalidArgument(
                "Invalid value at '\(location)': \(name) must be at most \(maxInt32), got \(number).")
        }
        return Int(number)
    }
}
