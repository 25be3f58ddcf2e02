internal import CSQLite

/// One-call execution: bind values, step, reset. Text and blob values are bound with `SQLITE_STATIC`, pointing into
/// the caller's strings and arrays, because the bindings are cleared before those borrows end; SQLite copies nothing.
extension SQLiteStatement {
    /// Above this many text/blob values the nested borrows get deep, so binding falls back to copying.
    private static var maxBorrowedValues: Int { 32 }

    /// Binds `bindings` (replacing any earlier ones), steps to completion and resets, e.g. for `INSERT`, `UPDATE`,
    /// `DELETE`.
    public func run(_ bindings: [SQLiteValue] = []) throws(SQLiteError) {
        defer { reset() }
        try withBindings(bindings) { () throws(SQLiteError) in
            while try step() {}
        }
    }

    /// Binds `bindings`, collects every row and resets.
    public func rows(_ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        defer { reset() }
        return try withBindings(bindings) { () throws(SQLiteError) in
            var rows: [SQLiteRow] = []
            var names: [String]?
            while try step() {
                let columnNames = names ?? columnNames
                names = columnNames
                rows.append(row(columnNames: columnNames))
            }
            return rows
        }
    }

    /// Binds `bindings` and calls `body` for each row with the statement positioned on it, so columns can be read in
    /// place (`withBlob`) without materializing rows; resets at the end.
    public func forEachRow(
        _ bindings: [SQLiteValue] = [], _ body: (SQLiteStatement) throws -> Void
    ) throws {
        defer { reset() }
        let outcome = try withBindings(bindings) { () throws(SQLiteError) -> Result<Void, any Error> in
            while try step() {
                do { try body(self) } catch { return .failure(error) }
            }
            return .success(())
        }
        try outcome.get()
    }

    /// Resets, binds `values` for the duration of `body`, then clears the bindings.
    func withBindings<R>(
        _ values: [SQLiteValue], _ body: () throws(SQLiteError) -> R
    ) throws(SQLiteError) -> R {
        reset()
        if let error = parameterCountError(values.count) { throw error }
        let borrowed = values.count(where: { value in
            switch value {
            case .text, .blob: true
            default: false
            }
        })
        if borrowed > Self.maxBorrowedValues {
            bind(values)
            defer { clearBindings() }
            return try body()
        }
        return try bindBorrowing(values, from: 0, body)
    }

    /// Binds `values[index...]`, nesting one borrow scope per text or blob so each pointer outlives the step calls.
    private func bindBorrowing<R>(
        _ values: [SQLiteValue], from index: Int, _ body: () throws(SQLiteError) -> R
    ) throws(SQLiteError) -> R {
        guard index < values.count else {
            // Clear while the borrows are still alive: SQLite must never hold a dangling pointer.
            defer { clearBindings() }
            return try body()
        }
        let parameter = Int32(index + 1)
        switch values[index] {
        case .text(var text):
            let outcome = text.withUTF8 { bytes in
                record(bindText(UnsafeRawBufferPointer(bytes), at: parameter, destructor: nil), index: parameter)
                return Result { () throws(SQLiteError) in try bindBorrowing(values, from: index + 1, body) }
            }
            return try outcome.get()
        case .blob(let bytes):
            let outcome = bytes.withUnsafeBytes { bytes in
                record(bindBlob(bytes, at: parameter, destructor: nil), index: parameter)
                return Result { () throws(SQLiteError) in try bindBorrowing(values, from: index + 1, body) }
            }
            return try outcome.get()
        case let value:
            bind(value, at: parameter)
            return try bindBorrowing(values, from: index + 1, body)
        }
    }
}
