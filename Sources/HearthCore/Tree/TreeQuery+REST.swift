extension TreeQuery {
    /// The query parameters of the Realtime Database REST API that shape a query.
    public static let restParameterNames: Set<String> = [
        "orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast",
    ]

    /// Reads a query from REST parameters: `orderBy` (a JSON string: `"$key"`, `"$value"`, `"$priority"` or a child
    /// path), the bounds `startAt`, `startAfter`, `endAt`, `endBefore`, `equalTo` (each a JSON primitive, optionally
    /// followed by `,` and a JSON string key that breaks ties, as Firebase's REST client sends them), and
    /// `limitToFirst`/`limitToLast`.
    /// - Returns: `nil` when no query parameter is present.
    /// - Throws: `INVALID_ARGUMENT` with Firebase's wording where it has one.
    public static func parse(rest parameters: [String: String]) throws(HearthError) -> TreeQuery? {
        guard parameters.keys.contains(where: restParameterNames.contains) else { return nil }
        guard let orderText = parameters["orderBy"] else {
            throw .invalidArgument("orderBy must be defined when other query parameters are defined")
        }
        let order = try parseOrder(orderText)
        var query = TreeQuery(order: order)
        if let text = parameters["equalTo"] {
            if ["startAt", "startAfter", "endAt", "endBefore"].contains(where: { parameters[$0] != nil }) {
                throw .invalidArgument("equalTo cannot be combined with startAt, startAfter, endAt or endBefore")
            }
            let bound = try parseBound(text, name: "equalTo", order: order, inclusive: true)
            query.start = bound
            query.end = bound
        }
        if parameters["startAt"] != nil && parameters["startAfter"] != nil {
            throw .invalidArgument("startAt and startAfter cannot both be set")
        }
        if parameters["endAt"] != nil && parameters["endBefore"] != nil {
            throw .invalidArgument("endAt and endBefore cannot both be set")
        }
        for (name, inclusive) in [("startAt", true), ("startAfter", false)] {
            if let text = parameters[name] {
                query.start = try parseBound(text, name: name, order: order, inclusive: inclusive)
            }
        }
        for (name, inclusive) in [("endAt", true), ("endBefore", false)] {
            if let text = parameters[name] {
                query.end = try parseBound(text, name: name, order: order, inclusive: inclusive)
            }
        }
        if parameters["limitToFirst"] != nil && parameters["limitToLast"] != nil {
            throw .invalidArgument("limitToFirst and limitToLast cannot both be set")
        }
        if let text = parameters["limitToFirst"] { query.limit = .first(try parseLimit(text, name: "limitToFirst")) }
        if let text = parameters["limitToLast"] { query.limit = .last(try parseLimit(text, name: "limitToLast")) }
        return query
    }

    static func parseOrder(_ text: String) throws(HearthError) -> Order {
        let invalid = HearthError.invalidArgument("orderBy must be a valid JSON encoded path")
        guard case .string(let name)? = try? JSONParser.parse(text) else { throw invalid }
        switch name {
        case "$key": return .key
        case "$value": return .value
        case "$priority": return .priority
        default:
            guard let path = try? TreePath(validating: name), !path.isRoot else { throw invalid }
            return .child(path)
        }
    }

    static func parseLimit(_ text: String, name: String) throws(HearthError) -> Int {
        guard let value = Int(text), value > 0, value <= Int(Int32.max) else {
            throw .invalidArgument("\(name) must be a positive integer")
        }
        return value
    }

    static func parseBound(_ text: String, name: String, order: Order, inclusive: Bool) throws(HearthError) -> Bound {
        let (valueText, keyText) = splitKey(text)
        let primitive = HearthError.invalidArgument("Constraint index field must be a JSON primitive")
        guard let json = try? JSONParser.parse(valueText) else { throw primitive }
        var key: String?
        if let keyText {
            guard case .string(let keyName)? = try? JSONParser.parse(keyText), TreeKey.isValid(keyName) else {
                throw .invalidArgument("The key argument of \(name) must be a JSON string holding a valid key")
            }
            key = keyName
        }
        let value: TreeLeaf?
        switch json {
        case .null: value = nil
        case .array, .object: throw primitive
        default: value = TreeLeaf(json: json)
        }
        switch order {
        case .key:
            guard case .string? = value, key == nil else {
                throw .invalidArgument("When orderBy is \"$key\", \(name) must be a string and takes no key argument")
            }
        case .priority:
            if case .bool? = value {
                throw .invalidArgument(
                    "When orderBy is \"$priority\", \(name) must be a valid priority (null, a number or a string)")
            }
        case .value, .child:
            break
        }
        return Bound(value: value, key: key, inclusive: inclusive)
    }

    /// Splits `value,"key"` after the first JSON primitive; a value alone has no key part.
    static func splitKey(_ text: String) -> (String, String?) {
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count, utf8[index] == UInt8(ascii: " ") { index += 1 }
        if index < utf8.count, utf8[index] == UInt8(ascii: "\"") {
            index += 1
            while index < utf8.count, utf8[index] != UInt8(ascii: "\"") {
                index += utf8[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            index += 1
        }
        guard let comma = utf8[min(index, utf8.count)...].firstIndex(of: UInt8(ascii: ",")) else { return (text, nil) }
        return (String(decoding: utf8[..<comma], as: UTF8.self), String(decoding: utf8[(comma + 1)...], as: UTF8.self))
    }
}
