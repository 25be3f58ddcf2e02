import Foundation
public import HearthCore
public import HearthStore
internal import HearthSQLite
import Synchronization

/// The embedded storage engine: one SQLite database in WAL mode, one writer thread that groups concurrent
/// commits into one transaction (group commit), and a pool of read connections.
///
/// An acknowledged write has reached the write-ahead log through `write(2)`, so it survives the server
/// process being killed; `synchronous = NORMAL` leaves only an operating-system crash able to lose the most
/// recent commits, the trade-off SQLite documents for WAL mode.
public final class SQLiteDocumentStore: DocumentStore {
    /// Settings of the engine.
    public struct Configuration: Sendable {
        /// The directory holding `hearth.sqlite` (created if missing).
        public var directory: String
        /// Read connections; one per HTTP thread is enough.
        public var readers: Int = 4
        /// The most commits folded into one transaction.
        public var maxCommitsPerTransaction: Int = 256
        /// How many change-log rows to keep; older ones are pruned.
        public var changeLogRetention: Int = 100_000
        /// Declared composite indexes (from `hearth.indexes.json`); new ones are built in the background.
        public var indexes: [IndexDefinition] = []

        /// Creates a configuration for a data directory.
        public init(directory: String) {
            self.directory = directory
        }
    }

    /// The database file inside the data directory.
    public static let fileName = "hearth.sqlite"

    let configuration: Configuration
    let databasePath: String
    private let writer: CommitWriter
    private let readers: SQLiteConnectionPool
    private let checkpointer: Checkpointer
    let catalog = IndexCatalog()

    /// Opens (creating and migrating if needed) the database in `configuration.directory`.
    public init(configuration: Configuration) throws(HearthError) {
        self.configuration = configuration
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.directory, withIntermediateDirectories: true)
        } catch {
            throw .internal("Cannot create the data directory \(configuration.directory): \(error.localizedDescription)")
        }
        databasePath = (configuration.directory as NSString).appendingPathComponent(Self.fileName)
        let toBuild: [Int64]
        do {
            let connection = try SQLiteConnection(path: databasePath, options: SQLiteConnection.Options())
            try SQLiteMigrator.migrate(connection, migrations: Schema.migrations)
            // Checkpoints run on their own thread (Checkpointer), never inside a commit.
            try connection.execute("PRAGMA wal_autocheckpoint = 0")
            checkpointer = try Checkpointer(path: databasePath, interval: .milliseconds(500))
            var readOptions = SQLiteConnection.Options()
            readOptions.readOnly = true
            readOptions.create = false
            readers = try SQLiteConnectionPool(path: databasePath, size: configuration.readers, options: readOptions)
            toBuild = try catalog.reconcile(with: configuration.indexes, in: connection)
            writer = CommitWriter(connection: connection, configuration: configuration, catalog: catalog)
        } catch let error as SQLiteError {
            throw .internal("Cannot open the database \(databasePath): \(error)")
        } catch {
            throw .internal("Cannot open the database \(databasePath): \(error)")
        }
        writer.start()
        checkpointer.start()
        for id in toBuild { buildIndex(id, after: []) }
    }

    public func commit(
        _ writes: [Write], in database: DatabaseName,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        for write in writes {
            do throws(HearthError) {
                try WriteApplier.validate(write)
            } catch {
                completion(.failure(error))
                return
            }
        }
        writer.submit(.commit(writes, database, completion))
    }

    public func document(at path: ResourcePath) throws(HearthError) -> StoredDocument? {
        try read { db in try DocumentRows.fetch(path, in: db) }
    }

    public func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?] {
        try read { db in
            try db.transaction(.deferred) { try paths.map { try DocumentRows.fetch($0, in: db) } }
        }
    }

    public func listDocuments(_ request: ListDocumentsRequest) throws(HearthError) -> ListDocumentsPage {
        try read { db in try DocumentListing.page(request, in: db) }
    }

    public func collectionIDs(under parent: ResourcePath, after: String?, limit: Int) throws(HearthError) -> [String] {
        try read { db in try DocumentListing.collectionIDs(under: parent, after: after, limit: limit, in: db) }
    }

    public func deleteAllDocuments(completion: @escaping @Sendable (Result<Int, HearthError>) -> Void) {
        writer.submit(.deleteAll(completion))
    }

    public func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] {
        try read { db in try ChangeLog.records(after: sequence, limit: limit, in: db) }
    }

    public func statistics() -> StoreStatistics {
        var statistics = writer.counters.withLock { $0 }
        let manager = FileManager.default
        for suffix in ["", "-wal"] {
            let size = (try? manager.attributesOfItem(atPath: databasePath + suffix)[.size] as? Int) ?? 0
            statistics.databaseBytes += size
        }
        return statistics
    }

    /// Declared indexes and whether each is ready.
    public func indexStatuses() -> [IndexStatus] {
        catalog.all.map { IndexStatus(definition: $0.definition, ready: $0.ready) }
    }

    /// Drives a background build one chunk at a time through the writer, so commits interleave with it.
    private func buildIndex(_ id: Int64, after cursor: [UInt8]) {
        writer.submit(
            .buildIndex(id: id, after: cursor) { [weak self] result in
                if case .success(let next?) = result { self?.buildIndex(id, after: next) }
            })
    }

    public func close() {
        checkpointer.stop()
        writer.stop()
        readers.close()
    }

    deinit { close() }

    /// Runs a read on a pooled connection, mapping storage failures to `INTERNAL` (or `UNAVAILABLE` when busy).
    private func read<T>(_ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        do {
            return try readers.withConnection(body)
        } catch let error as HearthError {
            throw error
        } catch let error as SQLiteError {
            throw error.isBusy ? HearthError(.unavailable, "The database is busy; retry.") : .internal("Read failed: \(error)")
        } catch {
            throw .internal("Read failed: \(error)")
        }
    }
}
