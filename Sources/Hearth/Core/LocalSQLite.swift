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
    /// `nil`; a file that cannot be opened leaves every statement a no-op, so the SDK keeps working online only.
    init(url: URL?) {
        let path: String
        if let url {
            try? FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            path = url.path
        } else {
            path = ":memory:"
        }
        var handle: OpaquePointer?
        if sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
            == SQLITE_OK
        {
            db = handle
            if url != nil { execute("PRAGMA journal_mode=WAL") }
        } else {
            sqlite3_close(handle)
        }
    }

    deinit { sqlite3_close(db) }

    /// Runs SQL without bindings or results (schema statements); failures are ignored, as for `ALTER TABLE … ADD
    /// COLUMN` run again on a file that already has the column.
    func execute(_ sql: String) {
        lock.lock()
        defer { lock.unlock() }
        sqlite3_exec(db, sql, nil, nil, nil)
    }

    /// Runs one statement with text bindings, calling `row` for each result row.
    func run(_ sql: String, _ bindings: [String?], row: ((OpaquePointer) -> Void)? = nil) {
        run(sql, bindings: bindings.map(Binding.text), row: row)
    }

    /// Runs one statement, calling `row` for each result row.
    func run(_ sql: String, bindings: [Binding], row: ((OpaquePointer) -> Void)? = nil) {
        lock.lock()
        defer { lock.unlock() }
        guard let db else { return }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return }
        defer { sqlite3_finalize(statement) }
        for (index, binding) in bindings.enumerated() {
            switch binding {
            case .text(let value?): sqlite3_bind_text(statement, Int32(index + 1), value, -1, hearth_sqlite_transient())
            case .text(nil): sqlite3_bind_null(statement, Int32(index + 1))
            case .integer(let value): sqlite3_bind_int64(statement, Int32(index + 1), value)
            }
        }
        while sqlite3_step(statement) == SQLITE_ROW { row?(statement) }
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
