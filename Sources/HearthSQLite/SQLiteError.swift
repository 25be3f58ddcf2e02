internal import CSQLite

/// An error reported by SQLite, or by this wrapper when it is misused.
///
/// `description` carries only the result code and SQLite's message, never bound values: errors end up in logs and
/// HTTP responses, and bound values are user data. The SQL text is kept for `debugDescription` only, because a
/// statement built with `unsafeSQL:` may contain anything.
public struct SQLiteError: Error, CustomStringConvertible, CustomDebugStringConvertible, Equatable {
    /// The primary result code, e.g. 19 for `SQLITE_CONSTRAINT`.
    public var code: Int32
    /// The extended result code, e.g. 2067 for `SQLITE_CONSTRAINT_UNIQUE`.
    public var extendedCode: Int32
    /// SQLite's English message (`sqlite3_errmsg`) or the wrapper's own explanation.
    public var message: String
    /// The SQL text that failed, when known.
    public var sql: String?

    /// Creates an error; `code` is derived from the low byte of `extendedCode`, as SQLite defines it.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = extendedCode & 0xFF
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// `"SQLite error <code>: <message>"` — safe to log.
    public var description: String { "SQLite error \(code): \(message)" }

    /// The description plus the extended code and SQL text; for local debugging, not for logs users can read.
    public var debugDescription: String {
        var text = "SQLite error \(code) (extended \(extendedCode)): \(message)"
        if let sql { text += " — SQL: \(sql)" }
        return text
    }

    /// A `UNIQUE`, `PRIMARY KEY`, `NOT NULL`, `CHECK` or foreign-key constraint failed.
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    /// A `UNIQUE` or `PRIMARY KEY` constraint failed: the row already exists.
    public var isUniqueViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY are shift expressions, which Swift does not import.
        extendedCode == SQLITE_CONSTRAINT | (8 << 8) || extendedCode == SQLITE_CONSTRAINT | (6 << 8)
    }

    /// Another connection held a lock for longer than the busy timeout; retrying later may succeed.
    public var isBusy: Bool { code == SQLITE_BUSY }
}

extension SQLiteError {
    /// Reads the message of the most recent failure on `db`; `rc` must be the code that call returned.
    init(rc: Int32, db: OpaquePointer?, sql: String?) {
        let message: String
        if let db, let text = sqlite3_errmsg(db) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(rc))
        }
        self.init(extendedCode: rc, message: message, sql: sql)
    }

    /// An API misuse detected by the wrapper itself, before SQLite could see it.
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISUSE, message: message, sql: sql)
    }
}
