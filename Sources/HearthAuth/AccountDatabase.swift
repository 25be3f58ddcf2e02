import Foundation
import HearthSQLite
import Synchronization

/// The accounts' own connections to the shared `hearth.sqlite`: one writer behind a lock, and a small pool of
/// read-only connections for the per-request token checks, which must not queue behind writes.
final class AccountDatabase: Sendable {
    /// The database file name inside the data directory, shared with the documents engine.
    static let fileName = "hearth.sqlite"

    let path: String
    private let writer: Mutex<SQLiteConnection>
    private let readers: SQLiteConnectionPool
    /// Account status for ID-token checks; emptied by every ``write(_:)``.
    let tokenStatuses = TokenStatusCache()

    /// Opens (creating and migrating) the database in `directory`.
    init(directory: String, readers: Int = 4) throws(AuthError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .internal("cannot create the data directory: \(error.localizedDescription)")
        }
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        do {
            let connection = try SQLiteConnection(path: path)
            try SQLiteMigrator.migrate(
                connection, component: AccountSchema.component, migrations: AccountSchema.migrations)
            // The documents engine checkpoints the shared WAL on its own thread; commits here never should.
            try connection.execute("PRAGMA wal_autocheckpoint = 0")
            writer = Mutex(connection)
            self.readers = try SQLiteConnectionPool(
                path: path, size: max(1, readers), options: SQLiteConnection.Options())
        } catch {
            throw .internal("cannot open the accounts database: \(error)")
        }
    }

    /// Runs `body` in an `IMMEDIATE` transaction on the writer; SQLite errors become `INTERNAL_ERROR`, and errors
    /// `body` throws (`AuthError`) pass through after the rollback.
    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws(AuthError) -> T {
        // After the write, committed or not: a status read while it ran must not be kept.
        defer { tokenStatuses.invalidate() }
        do {
            return try writer.withLock { db in try db.transaction(.immediate) { try body(db) } }
        } catch let error as AuthError {
            throw error
        } catch let error as SQLiteError where error.isBusy {
            throw AuthError(
                "TOO_MANY_ATTEMPTS_TRY_LATER", "the database is busy", status: 503, statusName: "UNAVAILABLE")
        } catch let error as SQLiteError where error.code == 13 || error.code == 10 {
            // SQLITE_FULL, SQLITE_IOERR: the disk, not the request — 503 as documents and the tree answer, and the
            // transaction was rolled back whole.
            throw AuthError(
                "UNAVAILABLE", "the database could not write (\(error)); nothing was changed", status: 503,
                statusName: "UNAVAILABLE", reason: "backendError")
        } catch {
            throw .internal("accounts database write failed: \(error)")
        }
    }

    /// Runs `body` on a read-only connection (the latest committed snapshot).
    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws(AuthError) -> T {
        do {
            return try readers.withConnection { db in try body(db) }
        } catch let error as AuthError {
            throw error
        } catch {
            throw .internal("accounts database read failed: \(error)")
        }
    }

    /// Closes every connection.
    func close() {
        readers.close()
        writer.withLock { $0.close() }
    }
}
