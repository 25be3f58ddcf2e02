internal import CSQLite

/// A prepared statement: bind parameters, step through rows, read columns, reset.
///
/// A statement belongs to the connection that prepared it and inherits its rule: one thread at a time. That is why it
/// is not `Sendable`. Statements from `SQLiteConnection.prepare` are cached and shared by SQL text, so finish with one
/// (`reset()`) before preparing the same text again.
public final class SQLiteStatement {
    /// `nil` once finalized, which happens when the owning connection closes.
    private(set) var handle: OpaquePointer?
    /// The SQL text this statement was prepared from.
    public let sql: String
    /// A bind failure is kept and thrown by the next `step()`, so the hot-path `bind` calls need no `try` and still
    /// never lose an error.
    var pendingError: SQLiteError?

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Releases the compiled statement now; later use reports `SQLITE_MISUSE` instead of touching freed memory.
    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    /// Advances to the next row. Returns `true` when a row is available and `false` when the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        if let pendingError { throw pendingError }
        guard let handle else {
            throw .misuse("the statement's connection is closed", sql: sql)
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw SQLiteError(rc: rc, db: sqlite3_db_handle(handle), sql: sql)
        }
    }

    /// Rewinds the statement and clears its bindings, so it is ready for reuse with new values.
    public func reset() {
        pendingError = nil
        guard let handle else { return }
        // sqlite3_reset repeats the last step's error, which step() has already thrown.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Unbinds every parameter; `sqlite3_clear_bindings` dereferences its argument, so a finalized statement skips it.
    func clearBindings() {
        guard let handle else { return }
        sqlite3_clear_bindings(handle)
    }

    /// The number of `?` parameters.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// The number of result columns; 0 for statements that return no rows.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of a result column (its `AS` alias when there is one).
    public func columnName(at index: Int32) -> String {
        guard let handle else { return "" }
        return sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// All result column names, in order.
    public var columnNames: [String] {
        (0..<columnCount).map { columnName(at: $0) }
    }
}
