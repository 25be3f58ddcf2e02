import Foundation
import HearthSQLite

/// One SQLite file the SDK keeps local state in (the Firestore cache and queue, the tree cache and queue), through
/// HearthSQLite, the wrapper the server uses: statements with text and integer bindings, run one at a time under a
/// lock. A statement that fails is reported (``failures``, and one line on standard error per kind of failure),
/// never silently taken for an empty answer.
///
/// `@unchecked Sendable`: the connection is only touched inside `lock` (recursive, so a ``transaction(_:)`` holds it
/// across its statements).
final class LocalSQLite: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var connection: SQLiteConnection?
    private var reported: Set<String> = []
    /// What went wrong so far (the latest 50), for tests and diagnostics.
    private(set) var failures: [String] = []

    /// A value bound to a statement parameter.
    enum Binding {
        case text(String?)
        case integer(Int64)
    }

    /// One result row.
    struct Row {
        let values: SQLiteRow
        /// A column as text, or `nil` for NULL.
        func text(_ column: Int) -> String? { values.string(column) }
        /// A column as an integer (0 for NULL).
        func integer(_ column: Int) -> Int64 { values.int64(column) ?? 0 }
    }

    /// Opens (or creates) the file at `url` in an owner-only directory, or an in-memory database when `url` is
    /// `nil`. A file that cannot be opened or is not a database is replaced by an in-memory database, so the SDK
    /// keeps working without persistence: queued writes are still sent, only not kept across a restart (were every
    /// statement a no-op, a write queued there would never be sent). The replacement is reported.
    init(url: URL?) {
        guard let url else {
            connection = Self.open(":memory:")
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            report("cannot create \(url.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        do {
            connection = try Self.openFile(url.path)
        } catch {
            report("cannot open \(url.path) (\(error)); keeping local state in memory until the app restarts")
            connection = Self.open(":memory:")
        }
    }

    private static func openFile(_ path: String) throws -> SQLiteConnection {
        var options = SQLiteConnection.Options()
        options.foreignKeys = false
        options.cacheSizeKiB = 2048
        let connection = try SQLiteConnection(path: path, options: options)
        // Opening is lazy: a file that is not a database fails only at its first statement.
        _ = try connection.fetchOne("PRAGMA user_version")
        return connection
    }

    private static func open(_ path: String) -> SQLiteConnection? {
        var options = SQLiteConnection.Options()
        options.journalModeWAL = false
        options.foreignKeys = false
        return try? SQLiteConnection(path: path, options: options)
    }

    deinit { connection?.close() }

    /// Runs SQL without bindings or results (schema statements). `tolerated` is a failure the caller expects on some
    /// files — `ALTER TABLE … ADD COLUMN` run again where the column exists ("duplicate column") — and is not
    /// reported; any other failure is.
    func execute(_ sql: String, tolerating tolerated: String? = nil) {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else { return }
        do {
            try connection.execute(sql)
        } catch {
            if let tolerated, error.message.contains(tolerated) { return }
            report("\(error)")
        }
    }

    /// Runs one statement with text bindings, calling `row` for each result row; `false` (and reported) when it
    /// failed.
    @discardableResult
    func run(_ sql: String, _ bindings: [String?], row: ((Row) -> Void)? = nil) -> Bool {
        run(sql, bindings: bindings.map(Binding.text), row: row)
    }

    /// Runs an `INSERT` and returns the new row's ID.
    /// - Throws: `FirestoreErrorCode(.internal)` naming SQLite's reason when the row was not stored.
    func insert(_ sql: String, bindings: [Binding]) throws(FirestoreErrorCode) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        guard let connection, run(sql, bindings: bindings) else {
            throw FirestoreErrorCode(
                .internal, "The write could not be stored in the local queue: \(failures.last ?? "no database")")
        }
        return connection.lastInsertRowID
    }

    /// Runs one statement, calling `row` for each result row; `false` (and reported) when it failed.
    @discardableResult
    func run(_ sql: String, bindings: [Binding], row: ((Row) -> Void)? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else { return false }
        do {
            let statement = try connection.prepare(sql)
            defer { statement.reset() }
            for (index, binding) in bindings.enumerated() {
                switch binding {
                case .text(let value?): statement.bind(.text(value), at: Int32(index + 1))
                case .text(nil): statement.bindNull(at: Int32(index + 1))
                case .integer(let value): statement.bind(value, at: Int32(index + 1))
                }
            }
            while try statement.step() { row?(Row(values: statement.row())) }
            return true
        } catch {
            report("\(error)")
            return false
        }
    }

    /// Runs `body` inside one transaction, so several statements land together (or, after a crash, not at all).
    func transaction(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        execute("BEGIN IMMEDIATE")
        body()
        execute("COMMIT")
    }

    /// Keeps `message` among ``failures`` and writes it to standard error the first time it is seen, as Firebase's
    /// SDKs log local-store failures.
    private func report(_ message: String) {
        lock.lock()
        defer { lock.unlock() }
        failures.append(message)
        if failures.count > 50 { failures.removeFirst(failures.count - 50) }
        guard reported.insert(message).inserted, reported.count <= 100 else { return }
        FileHandle.standardError.write(Data("Hearth: the local store failed: \(message)\n".utf8))
    }

    /// Escapes `%`, `_` and `\` for a `LIKE … ESCAPE '\'` pattern.
    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
