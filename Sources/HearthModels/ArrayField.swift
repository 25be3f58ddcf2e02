/// An array property that is either a value or a change the server applies atomically to the stored array:
/// `.union` appends each element not already present (`FieldValue.arrayUnion`), `.remove` removes every occurrence
/// (`FieldValue.arrayRemove`). Concurrent unions and removals from several clients all take effect, where writing
/// the whole array would keep only the last writer's.
///
/// Read from the database it is always `.value`.
public enum ArrayField<Element: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// A stored array.
    case value([Element])
    /// Append each element not already present, on the server.
    case union([Element])
    /// Remove every occurrence of each element, on the server.
    case remove([Element])

    /// The elements, when this is a stored array (`nil` for a pending union or removal).
    public var elements: [Element]? {
        if case .value(let elements) = self { return elements }
        return nil
    }

    /// Reads a stored array.
    public init(from decoder: any Decoder) throws {
        self = .value(try decoder.singleValueContainer().decode([Element].self))
    }

    /// Writes the array, or the change for the server.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .value(let elements):
            var container = encoder.singleValueContainer()
            try container.encode(elements)
        case .union(let elements):
            try ModelEncoding.encodeMarker(.arrayUnion, operand: elements, to: encoder)
        case .remove(let elements):
            try ModelEncoding.encodeMarker(.arrayRemove, operand: elements, to: encoder)
        }
    }
}
