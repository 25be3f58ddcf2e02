/// One result row, copied out of SQLite so it can cross threads.
public struct SQLiteRow: Sendable, Equatable {
    /// Column names in result order; shared by every row of one result set.
    public let columnNames: [String]
    /// Column values in result order.
    public let values: [SQLiteValue]

    /// A row from names and values of equal length.
    public init(columnNames: [String], values: [SQLiteValue]) {
        precondition(columnNames.count == values.count, "one name per value")
        self.columnNames = columnNames
        self.values = values
    }

    /// The number of columns.
    public var count: Int { values.count }

    /// The value at a 0-based column index; traps when out of range, like an array.
    public subscript(index: Int) -> SQLiteValue { values[index] }

    /// The value of the first column with this name (exact match), or `nil` if there is none.
    public subscript(name: String) -> SQLiteValue? {
        // Rows have a handful of columns: a linear scan beats building a dictionary per result set.
        columnNames.firstIndex(of: name).map { values[$0] }
    }

    /// The column as an integer; `nil` for `NULL`, non-integral reals, text and blobs.
    public func int64(_ index: Int) -> Int64? { values[index].int64Value }
    /// The named column as an integer; `nil` when absent or not an integer.
    public func int64(_ name: String) -> Int64? { self[name]?.int64Value }
    /// The column as `Int`; `nil` when not an integer.
    public func int(_ index: Int) -> Int? { values[index].intValue }
    /// The named column as `Int`; `nil` when absent or not an integer.
    public func int(_ name: String) -> Int? { self[name]?.intValue }
    /// The column as a real (integers widen); `nil` otherwise.
    public func double(_ index: Int) -> Double? { values[index].doubleValue }
    /// The named column as a real (integers widen); `nil` when absent or not numeric.
    public func double(_ name: String) -> Double? { self[name]?.doubleValue }
    /// The column as a boolean (non-zero integer); `nil` otherwise.
    public func bool(_ index: Int) -> Bool? { values[index].boolValue }
    /// The named column as a boolean (non-zero integer); `nil` when absent or not an integer.
    public func bool(_ name: String) -> Bool? { self[name]?.boolValue }
    /// The column as text; `nil` unless it is text.
    public func string(_ index: Int) -> String? { values[index].stringValue }
    /// The named column as text; `nil` when absent or not text.
    public func string(_ name: String) -> String? { self[name]?.stringValue }
    /// The column as bytes (text gives its UTF-8); `nil` otherwise.
    public func blob(_ index: Int) -> [UInt8]? { values[index].blobValue }
    /// The named column as bytes (text gives its UTF-8); `nil` when absent or neither blob nor text.
    public func blob(_ name: String) -> [UInt8]? { self[name]?.blobValue }
}
