/// A Swift value that can be bound to a statement parameter, e.g. through `SQLQuery` interpolation.
///
/// Conversion happens when the query is built, so a query holds only `Sendable` `SQLiteValue`s.
public protocol SQLiteBindable {
    /// The value to bind.
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable {
    /// Itself.
    public var sqliteValue: SQLiteValue { self }
}

extension Int: SQLiteBindable {
    /// An integer.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Int64: SQLiteBindable {
    /// An integer.
    public var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int32: SQLiteBindable {
    /// An integer.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Double: SQLiteBindable {
    /// A real.
    public var sqliteValue: SQLiteValue { .real(self) }
}

extension Bool: SQLiteBindable {
    /// 1 or 0: SQLite has no boolean storage class.
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension String: SQLiteBindable {
    /// Text.
    public var sqliteValue: SQLiteValue { .text(self) }
}

extension Substring: SQLiteBindable {
    /// Text.
    public var sqliteValue: SQLiteValue { .text(String(self)) }
}

extension Array: SQLiteBindable where Element == UInt8 {
    /// A blob.
    public var sqliteValue: SQLiteValue { .blob(self) }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    /// The wrapped value, or `NULL`.
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
