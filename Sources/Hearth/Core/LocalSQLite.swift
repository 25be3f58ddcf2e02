import CSQLite
import Foundation

/// One SQLite file the SDK keeps local state in (the Firestore cache and queue, the tree cache and queue), through
/// CSQLite: statements with text and integer bindings, run one at a time under a lock.
///
/// `@unchecked Sendable`: the connection handle is only touched inside `lock` (recursive, so a ``transaction(_:)``
/// holds it across its statements).
final class LocalSQLite: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var db: OpaquePointer?

    /// A value bound to a statement parameter.
    enum Binding {
        case text(String?)
        case integer(Int64)
    }

    /// Opens (or creates) the file at `url` in an owner-only directory, or an in-memory database when `url` is
    /// `nil`. A file that cannot be opened or is not a database is replaced by an in-memory database, so the SDK
    /// keeps working without persistence: queued writes are still sent, only not kept across a restart (were every
    /// statement a no-op, a write queued there would never be sent).
    init(url: URL?) {
        guard let url else {
            db = Self.open(":memory:")
            return
        }
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        db = Self.open(url.path, wal: true) ?? Self.open(":memory:")
    }

    /// A usable connection to `path` (a statement runs on it), or `nil`.
    private static func open(_ path: String, wal: Bool = false) -> OpaquePointer? {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        var rc = sqlite3_open_v2(path, &handle, flags, nil)
        // Opening is lazy: a file that is not a database fails only at its first statement.
        if rc == SQLITE_OK {
            rc = sqlite3_exec(handle, wal ? "PRAGMA journal_mode=WAL" : "PRAGMA user_version", nil, nil, nil)
        }
        guard rc == SQLITE_OK else {
            sqlite3_close(handle)
            return nil
        }
        return handle
    }

    deinit { sqlite3_close(db) }

    /// Runs SQL without bindings or results (schema statements); failures are ignored, as for `ALTER TABLE … ADD
    /// COLUMN` run again on a file that already has the column.
    func execute(_ sql: String) {
        lock.lock()
        defer { lock.unlock() }
        sqlite3_exec(db, sql, nil, nil, nil)
    }

    /// Runs one statement with text bindings, calling `row` for each result row; `false` when it failed.
    @discardableResult
    func run(_ sql: String, _ bindings: [String?], row: ((OpaquePointer) -> Void)? = nil) -> Bool {
        run(sql, bindings: bindings.map(Binding.text), row: row)
    }

    /// Runs an `INSERT` and returns the new row's ID.
    /// - Throws: `FirestoreErrorCode(.internal)` naming SQLite's reason when the row was not stored.
    func insert(_ sql: String, bindings: [Binding]) throws(FirestoreErrorCode) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        guard run(sql, bindings: bindings) else {
            throw FirestoreErrorCode(
                .internal, "The write could not be stored in the local queue: \(String(cString: sqlite3_errmsg(db)))")
        }
        return sqlite3_last_insert_rowid(db)
    }

    /// Runs one statement, calling `row` for each result row; `false` when it failed.
    @discardableResult
    func run(_ sql: String, bindings: [Binding], row: ((OpaquePointer) -> Void)? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let db else { return false }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
        defer { sqlite3_finalize(statement) }
        for (index, binding) in bindings.enumerated() {
            switch binding {
            case .text(let value?): sqlite3_bind_text(statement, Int32(index + 1), value, -1, hearth_sqlite_transient())
            case .text(nil): sqlite3_bind_null(statement, Int32(index + 1))
            case .integer(let value): sqlite3_bind_int64(statement, Int32(index + 1), value)
            }
        }
        var rc = sqlite3_step(statement)
        while rc == SQLITE_ROW {
            row?(statement)
            rc = sqlite3_step(statement)
        }
        return rc == SQLITE_DONE
    }

    /// Runs `body` inside one transaction, so several statements land together (or, after a crash, not at all).
    func transaction(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        execute("BEGIN IMMEDIATE")
        body()
        execute("COMMIT")
    }

    /// A column as text, or `nil` for NULL.
    static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }

    /// A column as an integer.
    static func integer(_ statement: OpaquePointer, _ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    /// Escapes `%`, `_` and `\` for a `LIKE … ESCAPE '\'` pattern.
    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
