import Foundation
import HearthCore
import HearthSQLite
package import HearthStoreSQLite
import Synchronization

/// The accounts' tables in `hearth.sqlite`, and the one road to them.
///
/// When a server runs, the accounts are given its `SQLiteDatabase`: every write is a job on that database's single
/// writer (in its own savepoint of a group commit) and reads use its pooled readers, so the process keeps one writer.
/// The `hearth users` command runs in a process of its own, beside a server that may be running and holding the data
/// directory; there (and in tests of the accounts alone) the accounts open their own connections: one writer behind a
/// lock, the process's only writer, and a small pool of readers. SQLite's file locks order the two processes' writes.
package final class AccountDatabase: Sendable {
    /// The database file name inside the data directory, shared with the documents engine.
    static let fileName = "hearth.sqlite"

    /// Where writes and reads go.
    private enum Backend: Sendable {
        /// The server's database: its writer and readers.
        case shared(SQLiteDatabase)
        /// Connections of the accounts' own (the `hearth users` process).
        case own(OwnConnections)
        /// Another engine's (PostgreSQL), which its owner closes.
        case external(any AccountStorage)
    }

    /// The accounts' own writer, behind a lock, and readers.
    private final class OwnConnections: Sendable {
        let writer: Mutex<SQLiteConnection>
        let readers: SQLiteConnectionPool

        init(writer: SQLiteConnection, readers: SQLiteConnectionPool) {
            self.writer = Mutex(writer)
            self.readers = readers
        }
    }

    private let backend: Backend
    /// Account status for ID-token checks; emptied by every ``write(_:)``.
    let tokenStatuses = TokenStatusCache()
    /// Where the signing keys live when not in the data directory's files.
    let signingKeys: (any SigningKeyStorage)?
    /// Where the rate limits' buckets live when not in this process (several nodes share them).
    let rateLimits: (any RateLimitStorage)?

    /// The accounts on a server's open database (migrated here, through its writer); its owner closes it.
    package init(database: SQLiteDatabase) throws(AuthError) {
        do {
            try database.migrate(component: AccountSchema.component, migrations: AccountSchema.migrations)
        } catch {
            throw .internal("cannot open the accounts database: \(error)")
        }
        backend = .shared(database)
        signingKeys = nil
        rateLimits = nil
    }

    /// The accounts in another engine (`storage`, already migrated), which its owner closes, with the signing keys
    /// in `signingKeys` (the same engine's, so every node signs and verifies with the same keys; `nil` keeps them
    /// in the data directory).
    package init(
        storage: any AccountStorage, signingKeys: (any SigningKeyStorage)? = nil,
        rateLimits: (any RateLimitStorage)? = nil
    ) {
        backend = .external(storage)
        self.signingKeys = signingKeys
        self.rateLimits = rateLimits
    }

    /// Opens (creating and migrating) the database in `directory` with connections of its own, for a process that
    /// runs no server (`hearth users`).
    init(directory: String, readers: Int = 4) throws(AuthError) {
        signingKeys = nil
        rateLimits = nil
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .internal("cannot create the data directory: \(error.localizedDescription)")
        }
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        do {
            let connection = try SQLiteConnection(path: path)
            try SQLiteMigrator.migrate(
                connection, component: AccountSchema.component, migrations: AccountSchema.migrations)
            // A server's checkpointer copies the shared WAL on its own thread; commits here never should.
            try connection.execute("PRAGMA wal_autocheckpoint = 0")
            backend = .own(
                OwnConnections(
                    writer: connection,
                    readers: try SQLiteConnectionPool(
                        path: path, size: max(1, readers), options: SQLiteConnection.Options())))
        } catch {
            throw .internal("cannot open the accounts database: \(error)")
        }
    }

    /// Runs `body` atomically on the writer (the server's: a savepoint of a group commit, waited for; our own: an
    /// `IMMEDIATE` transaction); SQLite errors become `INTERNAL_ERROR`, and errors `body` throws (`AuthError`) pass
    /// through after the rollback.
    func write<T: Sendable>(_ body: (any AccountRows) throws -> T) throws(AuthError) -> T {
        // After the write, committed or not: a status read while it ran must not be kept.
        defer { tokenStatuses.invalidate() }
        do {
            switch backend {
            case .shared(let database):
                return try database.writeAndWait { db in try body(SQLiteAccountRows(db: db)) }
            case .own(let own):
                return try own.writer.withLock { db in
                    try db.transaction(.immediate) { try body(SQLiteAccountRows(db: db)) }
                }
            case .external(let storage):
                return try storage.writeAccounts(body)
            }
        } catch let error as AuthError {
            throw error
        } catch let error as HearthError where error.code == .unavailable {
            // The writer refused the job whole: a full disk, a failed group commit, a server shutting down.
            throw AuthError(
                "UNAVAILABLE", "the database could not write (\(error.message)); nothing was changed", status: 503,
                statusName: "UNAVAILABLE", reason: "backendError")
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
    func read<T: Sendable>(_ body: (any AccountRows) throws -> T) throws(AuthError) -> T {
        do {
            switch backend {
            case .shared(let database): return try database.readConnection { db in try body(SQLiteAccountRows(db: db)) }
            case .own(let own): return try own.readers.withConnection { db in try body(SQLiteAccountRows(db: db)) }
            case .external(let storage): return try storage.readAccounts(body)
            }
        } catch let error as AuthError {
            throw error
        } catch {
            throw .internal("accounts database read failed: \(error)")
        }
    }

    /// Closes the accounts' own connections; a server's database is left to the server.
    func close() {
        guard case .own(let own) = backend else { return }
        own.readers.close()
        own.writer.withLock { $0.close() }
    }
}
