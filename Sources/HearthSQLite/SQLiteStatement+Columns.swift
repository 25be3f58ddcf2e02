internal import CSQLite

/// Column readers for the current row; indexes are 0-based, as in SQLite. Values read after the statement is done
/// or reset are meaningless (SQLite returns `NULL`), so read between a `true` `step()` and the next `step()`.
extension SQLiteStatement {
    /// Whether the column is `NULL`.
    public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The column as an integer, with SQLite's conversions (`NULL` is 0).
    public func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The column as `Int`, with SQLite's conversions (`NULL` is 0).
    public func int(at index: Int32) -> Int {
        Int(truncatingIfNeeded: sqlite3_column_int64(handle, index))
    }

    /// The column as a real, with SQLite's conversions (`NULL` is 0.0).
    public func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The column as text (`NULL` is ""); invalid UTF-8 is repaired rather than trapping.
    public func string(at index: Int32) -> String {
        // Ask for the bytes after the text pointer: the pointer call may convert the value, changing its length.
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes (`NULL` is empty).
    public func blob(at index: Int32) -> [UInt8] {
        withBlob(at: index) { [UInt8]($0) }
    }

    /// Lends the column's bytes without copying; the buffer is valid only inside `body`.
    public func withBlob<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // Pointer first, then the byte count: the order SQLite documents as safe.
        let base = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: base, count: base == nil ? 0 : count))
    }

    /// The column in its stored type.
    public func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: .text(string(at: index))
        case SQLITE_BLOB: .blob(blob(at: index))
        default: .null
        }
    }

    /// The current row, copied out so it can outlive the statement.
    public func row() -> SQLiteRow {
        row(columnNames: columnNames)
    }

    /// The current row, sharing a column-name array computed once per result set.
    func row(columnNames: [String]) -> SQLiteRow {
        var values: [SQLiteValue] = []
        values.reserveCapacity(columnNames.count)
        for index in 0..<Int32(columnNames.count) {
            values.append(value(at: index))
        }
        return SQLiteRow(columnNames: columnNames, values: values)
    }
}
