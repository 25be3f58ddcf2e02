import Foundation
public import HearthCore
internal import HearthSQLite
public import HearthStore
import Synchronization

/// The one owner of a data directory's `hearth.sqlite` in this process: the directory lock, the single writer
/// (its connection and thread, which runs every write as a typed job inside a group commit), the pool of read
/// connections with the transactions' pinned snapshots, and the checkpointer. The document and tree engines, and the
/// accounts when a server runs, are built on one database and never open a writer of their own.
///
/// An acknowledged write has reached the write-ahead log through `write(2)`, so it survives the server process being
/// killed; `synchronous = NORMAL` leaves only an operating-system crash able to lose the most recent commits, the
/// trade-off SQLite documents for WAL mode.
public final class SQLiteDatabase: Sendable {
    /// The database file inside the data directory.
    public static let fileName = "hearth.sqlite"
    /// The disk reserve's file in the data directory (see `DiskReserve`).
    public static let reserveFileName = "hearth.reserve"

    let configuration: Configuration
    let path: String
    /// The space held back for deletes on a full disk (`nil` when none is kept).
    let diskReserve: DiskReserve?
    let writer: CommitWriter
    let readers: SQLiteConnectionPool
    private let checkpointer: Checkpointer
    private let directoryLock: DataDirectoryLock
    /// Point reads' cache, which the writer keeps in step with its commits.
    let cache: DocumentCache
    let catalog = IndexCatalog()
    /// Open document transactions and their pinned snapshots.
    let transactions: TransactionRegistry<SQLiteConnection>
    /// Committed document changes, in commit order (the listener hub subscribes here).
    public let changeFeed = ChangeFeed<ChangeRecord>()
    /// Committed tree changes, in commit order (the tree listener hub subscribes here).
    public let treeFeed = ChangeFeed<TreeChange>()

    /// Opens (creating and migrating if needed) the database in `configuration.directory`, locks the directory
    /// against a second process, and starts the writer and the checkpointer.
    public init(configuration: Configuration) throws(HearthError) {
        self.configuration = configuration
        let transactions = TransactionRegistry<SQLiteConnection>(
            limits: configuration.transactionLimits,
            now: { [clock = configuration.clock] in Date(timeIntervalSince1970: clock.unixSeconds) },
            closeSnapshot: { connection in
                try? connection.execute("ROLLBACK")
                connection.close()
            })
        self.transactions = transactions
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.directory, withIntermediateDirectories: true)
        } catch {
            throw .internal(
                "Cannot create the data directory \(configuration.directory): \(error.localizedDescription)")
        }
        directoryLock = try DataDirectoryLock(directory: configuration.directory)
        let path = (configuration.directory as NSString).appendingPathComponent(Self.fileName)
        self.path = path
        cache = DocumentCache(
            maxEntries: configuration.documentCacheEntries, maxBytes: configuration.documentCacheBytes)
        let toBuild: [Int64]
        do {
            var writerOptions = SQLiteConnection.Options()
            writerOptions.pageSize = configuration.pageSize
            writerOptions.batchesWALWrites = true
            writerOptions.cacheSizeKiB = configuration.writerCacheKiB
            let connection = try SQLiteConnection(path: path, options: writerOptions)
            try SQLiteMigrator.migrate(connection, migrations: Schema.migrations)
            // Checkpoints run on their own thread (Checkpointer), never inside a commit.
            try connection.execute("PRAGMA wal_autocheckpoint = 0")
            var readOptions = SQLiteConnection.Options()
            readOptions.readOnly = true
            readOptions.create = false
            readers = try SQLiteConnectionPool(path: path, size: configuration.readers, options: readOptions)
            toBuild = try Self.reconcileIndexes(configuration, catalog: catalog, in: connection)
            let reserve =
                configuration.diskReserveBytes > 0
                ? DiskReserve.shared(
                    path: (configuration.directory as NSString).appendingPathComponent(Self.reserveFileName),
                    bytes: configuration.diskReserveBytes) : nil
            diskReserve = reserve
            let writer = CommitWriter(
                connection: connection, configuration: configuration, catalog: catalog, cache: cache,
                feeds: CommitWriter.Feeds(documents: changeFeed, tree: treeFeed), reserve: reserve)
            self.writer = writer
            checkpointer = try Checkpointer(
                path: path, interval: configuration.checkpointInterval, logger: configuration.logger,
                restartBytes: configuration.logRestartBytes,
                onLargeLog: { [transactions] in
                    // An open snapshot keeps the log from starting over; drop the ones past their life first.
                    // In memory: sweeping cannot fail.
                    try? transactions.sweep()
                    writer.requestLogRestart()
                })
        } catch {
            throw .internal("Cannot open the database \(path): \(error)")
        }
        writer.start()
        checkpointer.start()
        for id in toBuild { buildIndex(id, after: []) }
        if configuration.learnsIndexes {
            catalog.startLearning { [weak self] definition in self?.learn(definition) }
        }
    }

    /// Queues a job for the single writer.
    func submit(_ job: CommitWriter.Job) {
        writer.submit(job)
    }

    /// Runs a read on a pooled connection, or on a transaction's pinned snapshot.
    func read<T>(in transaction: TransactionID?, _ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        let snapshot = try transaction.flatMap { id throws(HearthError) in try transactions.snapshot(id) }
        do {
            if let snapshot { return try snapshot.connection.withLock { try body($0) } }
            return try readers.withConnection(body)
        } catch {
            throw Self.readFailure(error)
        }
    }

    /// Runs a read on a pooled connection (the latest committed snapshot).
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        try read(in: nil, body)
    }

    /// Commit counters and the size of the database file with its write-ahead log, for `/metrics`.
    func statistics() -> StoreStatistics {
        var statistics = writer.counters.withLock { $0 }
        let manager = FileManager.default
        for suffix in ["", "-wal"] {
            let size = (try? manager.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0
            statistics.databaseBytes += size
            if suffix == "-wal" { statistics.walBytes = size }
        }
        return statistics
    }

    /// Rolls back open transactions, stops the checkpointer and the writer (after its queued jobs), closes the
    /// readers and releases the data directory. Idempotent.
    public func close() {
        transactions.closeAll()
        checkpointer.stop()
        writer.stop()
        readers.close()
        directoryLock.release()
    }

    deinit { close() }

    /// Storage failures of a read as the API reports them: `UNAVAILABLE` when busy, `INTERNAL` otherwise.
    private static func readFailure(_ error: any Error) -> HearthError {
        switch error {
        case let error as HearthError: return error
        case let error as SQLiteError where error.isBusy:
            return HearthError(.unavailable, "The database is busy; retry.")
        default: return .internal("Read failed: \(error)")
        }
    }
}
