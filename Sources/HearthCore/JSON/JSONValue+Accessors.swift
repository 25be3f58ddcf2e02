extension JSONValue {
    /// The member named `key` when this is an object that has one, otherwise `nil`, so lookups chain with `?`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` when this is an array and `index` is in range, otherwise `nil` — never a trap, because
    /// indexes usually come from untrusted input.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        guard case .string(let string) = self else { return nil }
        return string
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        guard case .bool(let bool) = self else { return nil }
        return bool
    }

    /// The integer, only when this is ``integer(_:)``: a whole-valued double is not converted, so callers that need
    /// exact integers (counters, Firestore `integerValue`) never get a silently rounded one.
    public var int64Value: Int64? {
        guard case .integer(let integer) = self else { return nil }
        return integer
    }

    /// The number as a `Double`, from either ``integer(_:)`` (rounded to nearest when beyond 2^53) or ``double(_:)``.
    public var doubleValue: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .double(let double): double
        default: nil
        }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// Whether this is JSON `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
