/// One SQLite value, in SQLite's five storage classes.
public enum SQLiteValue: Sendable, Equatable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer; booleans are stored as 0 and 1.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes, which may contain zeros.
    case blob([UInt8])
}

extension SQLiteValue {
    /// Whether this is SQL `NULL`.
    public var isNull: Bool { self == .null }

    /// The integer, or a real that holds an integral value exactly; `nil` otherwise.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The integer as `Int`; `nil` when absent or out of range.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// A real, or an integer widened to `Double`; `nil` otherwise.
    public var doubleValue: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// Non-zero integers are `true`; `nil` for anything but an integer.
    public var boolValue: Bool? {
        if case .integer(let value) = self { return value != 0 }
        return nil
    }

    /// The text; `nil` for any other storage class, so a blob is never silently reinterpreted.
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes of a blob, or the UTF-8 bytes of text; `nil` otherwise.
    public var blobValue: [UInt8]? {
        switch self {
        case .blob(let value): value
        case .text(let value): Array(value.utf8)
        default: nil
        }
    }
}
