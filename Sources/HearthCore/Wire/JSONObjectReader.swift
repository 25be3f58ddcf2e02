/// Reads the members of a JSON object of a known message type, rejecting members the message does not have,
/// with the messages Google's APIs use ("Unknown name … Cannot find field.").
public struct JSONObjectReader {
    private let members: [String: JSONValue]
    /// Where the object sits, for error messages.
    public let location: String

    /// Wraps a JSON value that must be an object whose members are all among `allowed`.
    /// - Throws: `INVALID_ARGUMENT` when it is not an object or has an unknown member.
    public init(_ json: JSONValue, at location: String, allowed: Set<String>) throws(HearthError) {
        try self.init(json, at: location) { allowed.contains($0) }
    }

    /// As the `Set` form, for a literal list of member names: an array literal is searched in place, where a set
    /// literal would hash every name on every call (a commit reads several objects per write).
    public init(_ json: JSONValue, at location: String, allowed: [String]) throws(HearthError) {
        try self.init(json, at: location) { allowed.contains($0) }
    }

    private init(_ json: JSONValue, at location: String, isAllowed: (String) -> Bool) throws(HearthError) {
        guard case .object(let members) = json else {
            throw .invalidArgument("Invalid JSON payload received. Expected an object at '\(location)'.")
        }
        var accepted = members
        for name in members.keys where !isAllowed(name) {
            // Proto3 JSON also accepts a field under its `.proto` name (`structured_query`); such a member is
            // read under its JSON name, and giving both names is the duplicate it would be in the proto.
            let jsonName = ProtoFieldName.jsonName(name)
            guard jsonName != name, isAllowed(jsonName) else {
                throw .invalidArgument(
                    "Invalid JSON payload received. Unknown name \"\(name.prefix(64))\" at '\(location)': Cannot find field."
                )
            }
            guard members[jsonName] == nil else {
                throw .invalidArgument(
                    "Invalid JSON payload received. Duplicate field \"\(jsonName)\" at '\(location)': given as both \"\(jsonName)\" and \"\(name.prefix(64))\"."
                )
            }
            accepted[name] = nil
            accepted[jsonName] = members[name]
        }
        self.members = accepted
        self.location = location
    }

    /// The member's value, absent or `null` as `nil`.
    public subscript(name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    /// A string member.
    public func string(_ name: String) throws(HearthError) -> String? {
        guard let value = self[name] else { return nil }
        guard case .string(let text) = value else { throw mismatch(name, "a string") }
        return text
    }

    /// A boolean member.
    public func bool(_ name: String) throws(HearthError) -> Bool? {
        guard let value = self[name] else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(name, "true or false") }
        return flag
    }

    /// An integer member, given as a JSON number or a decimal string (proto3 JSON allows both).
    public func integer(_ name: String) throws(HearthError) -> Int64? {
        switch self[name] {
        case nil: return nil
        case .integer(let number)?: return number
        case .string(let text)?:
            guard let number = Int64(text) else { throw mismatch(name, "an integer") }
            return number
        default: throw mismatch(name, "an integer")
        }
    }

    /// An array member.
    public func array(_ name: String) throws(HearthError) -> [JSONValue]? {
        guard let value = self[name] else { return nil }
        guard case .array(let items) = value else { throw mismatch(name, "a list") }
        return items
    }

    /// A list of strings.
    public func strings(_ name: String) throws(HearthError) -> [String]? {
        guard let items = try array(name) else { return nil }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw mismatch(name, "a list of strings") }
            strings.append(text)
        }
        return strings
    }

    /// The path of a member, for nested error messages.
    public func location(of name: String) -> String { location.isEmpty ? name : "\(location).\(name)" }

    private func mismatch(_ name: String, _ expected: String) -> HearthError {
        .invalidArgument("Invalid value at '\(location(of: name))': expected \(expected).")
    }
}
