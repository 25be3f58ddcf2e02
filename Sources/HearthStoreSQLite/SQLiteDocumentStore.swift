import Foundation
public import HearthCore
public import HearthLog
internal import HearthSQLite
public import HearthStore
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
        /// How many write idempotency keys (`X-Hearth-Write-Id`) to keep with their answers; older ones are pruned.
        public var writeReceiptRetention: Int = WriteReceipts.defaultRetention
        /// The page size of a new database. Small pages suit Hearth's writes, which touch a few rows in each of
        /// several B-trees: every dirtied page is written whole to the write-ahead log.
        public var pageSize: Int? = 1024
        /// The most bytes of documents (stored encoding) one query or batch read may answer; past it the read fails
        /// with `RESOURCE_EXHAUSTED`, and a listing's page ends early.
        public var maxResultBytes: Int = 64 * 1024 * 1024
        /// Where the store reports what it survived (a failed checkpoint, a full disk); silent by default.
        public var logger = Logger(level: .error) { _ in }
        /// Space held back on the disk (`hearth.reserve`) so deletes work once it is full; 0 keeps none.
        public var diskReserveBytes: Int = 16 << 20
        /// How often the checkpointer copies the write-ahead log into the database file.
        public var checkpointInterval: Duration = .milliseconds(500)
        /// The write-ahead log size past which the writer rewinds it (see `Checkpointer`). A rewind under steady
        /// writes stops commits while the writer copies the last frames and syncs both files (0.1 s measured under the
        /// create benchmark), so it is a safety valve against a log that would otherwise grow until the disk is full,
        /// not a size to run at; a load with pauses rewinds the log by itself at every pause.
        public var logRestartBytes: Int = 1 << 30
        /// The writer connection's page cache, in KiB. Random document IDs put each write on a different leaf of
        /// every B-tree; a cache that holds the trees' working set spares the writer a `pread` per leaf it misses
        /// (with 16 MiB, about 7 per create once a benchmark's collection passed 100 MB; with 64 MiB, under 2).
        public var writerCacheKiB: Int = 64 << 10
        /// The most documents the point-read cache holds, and about how many bytes of theirs; 0 disables it.
        public var documentCacheEntries: Int = 65_536
        /// See `documentCacheEntries`.
        public var documentCacheBytes: Int = 32 << 20
        /// Declared composite indexes (from `hearth.indexes.json`); new ones are built in the background.
        public var indexes: [IndexDefinition] = []
        /// Development mode: a query whose composite index is missing is answered by scanning, as the emulator
        /// answers it, and the index is learned (kept across restarts in dev mode) and built in the background.
        public var learnsIndexes = false
        /// Called once per index learned, with its definition (the server logs it).
        public var onIndexLearned: (@Sendable (IndexDefinition) -> Void)? = nil
        /// How long an idle transaction lives, in seconds (Firestore: 60).
        public var transactionIdleTimeout: Double = 60
        /// The oldest a transaction may be and still commit, in seconds (Firestore: 270).
        public var transactionMaxAge: Double = 270
        /// The wall clock; tests move it.
        public var clock: WallClock = .system

        var transactionLimits: TransactionRegistry.Limits {
            var limits = TransactionRegistry.Limits()
            limits.idleTimeout = transactionIdleTimeout
            limits.maxAge = transactionMaxAge
            return limits
        }

        /// Creates a configuration for a data directory.
        public init(directory: String) {
            self.directory = directory
        }
    }

    /// The database file inside the data directory.
    public static let fileName = "hearth.sqlite"
    /// The disk reserve's file in the data directory (see `DiskReserve`).
    public static let reserveFileName = "hearth.reserve"
    /// The space held back for deletes on a full disk (`nil` when none is kept).
    let diskReserve: DiskReserve?

    let configuration: Configuration
    let databasePath: String
    private let writer: CommitWriter
    private let readers: SQLiteConnectionPool
    private let checkpointer: Checkpointer
    private let cache: DocumentCache
    private let directoryLock: DataDirectoryLock
    let catalog = IndexCatalog()
    let transactions: TransactionRegistry
    /// Committed document changes, in commit order (the listener hub subscribes here).
    public let changeFeed = ChangeFeed<ChangeRecord>()

    /// Opens (creating and migrating if needed) the database in `configuration.directory`.
    public init(configuration: Configuration) throws(HearthError) {
        self.configuration = configuration
        let transactions = TransactionRegistry(
            limits: configuration.transactionLimits,
            now: { [clock = configuration.clock] in Date(timeIntervalSince1970: clock.unixSeconds) })
        self.transactions = transactions
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.directory, withIntermediateDirectories: true)
        } catch {
            throw .internal(
                "Cannot create the data directory \(configuration.directory): \(error.localizedDescription)")
        }
        directoryLock = try DataDirectoryLock(directory: configuration.directory)
        databasePath = (configuration.directory as NSString).appendingPathComponent(Self.fileName)
        cache = DocumentCache(
            maxEntries: configuration.documentCacheEntries, maxBytes: configuration.documentCacheBytes)
        let toBuild: [Int64]
        do {
            var writerOptions = SQLiteConnection.Options()
            writerOptions.pageSize = configuration.pageSize
            writerOptions.batchesWALWrites = true
            writerOptions.cacheSizeKiB = configuration.writerCacheKiB
            let connection = try SQLiteConnection(path: databasePath, options: writerOptions)
            try SQLiteMigrator.migrate(connection, migrations: Schema.migrations)
            // Checkpoints run on their own thread (Checkpointer), never inside a commit.
            try connection.execute("PRAGMA wal_autocheckpoint = 0")
            var readOptions = SQLiteConnection.Options()
            readOptions.readOnly = true
            readOptions.create = false
            readers = try SQLiteConnectionPool(path: databasePath, size: configuration.readers, options: readOptions)
            // Learned indexes stay declared only in development mode; outside it they are dropped like any
            // undeclared index (their definitions stay in `learned_indexes` for `hearth indexes`).
            var definitions = configuration.indexes
            if configuration.learnsIndexes {
                for learned in try LearnedIndexes.load(from: connection) where !definitions.contains(learned) {
                    definitions.append(learned)
                }
            }
            toBuild = try catalog.reconcile(with: definitions, in: connection)
            let reserve =
                configuration.diskReserveBytes > 0
                ? DiskReserve.shared(
                    path: (configuration.directory as NSString).appendingPathComponent(Self.reserveFileName),
                    bytes: configuration.diskReserveBytes) : nil
            diskReserve = reserve
            let writer = CommitWriter(
                connection: connection, configuration: configuration, catalog: catalog, cache: cache,
                feed: changeFeed, reserve: reserve)
            self.writer = writer
            checkpointer = try Checkpointer(
                path: databasePath, interval: configuration.checkpointInterval, logger: configuration.logger,
                restartBytes: configuration.logRestartBytes,
                onLargeLog: { [transactions] in
                    // An open snapshot keeps the log from starting over; drop the ones past their life first.
                    transactions.sweep()
                    writer.requestLogRestart()
                })
        } catch let error as SQLiteError {
            throw .internal("Cannot open the database \(databasePath): \(error)")
        } catch {
            throw .internal("Cannot open the database \(databasePath): \(error)")
        }
        writer.start()
        checkpointer.start()
        for id in toBuild { buildIndex(id, after: []) }
        if configuration.learnsIndexes {
            catalog.startLearning { [weak self] definition in self?.learn(definition) }
        }
    }

    /// Declares an index a development-mode query needed, through the writer, then builds it.
    private func learn(_ definition: IndexDefinition) {
        let catalog = self.catalog
        let learned = configuration.onIndexLearned
        writer.submit(
            .atomic(
                { db, time in try LearnedIndexes.record(definition, at: time, in: db, catalog: catalog) },
                { [weak self] result in
                    guard case .success(let outcome) = result, let id = outcome.value as? Int64 else { return }
                    learned?(definition)
                    self?.buildIndex(id, after: [])
                }))
    }

    /// Queues the commit for the single writer, which judges and applies it inside a group transaction; see
    /// `DocumentStore.commit`.
    public func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?, judge: CommitJudge?,
        receipt: WriteReceipt<CommitResult>?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        var reads: TransactionRegistry.ReadSet?
        do throws(HearthError) {
            for write in writes { try WriteApplier.validate(write) }
            if let transaction {
                if !writes.isEmpty && transactions.isReadOnly(transaction) {
                    try? transactions.rollback(transaction)
                    throw .invalidArgument("A read-only transaction cannot write; begin a read-write transaction.")
                }
                reads = try transactions.finishForCommit(transaction)
            }
        } catch {
            completion(.failure(error))
            return
        }
        let job = CommitWriter.CommitJob(
            writes: writes, database: database, reads: reads, judge: judge, receipt: receipt)
        writer.submit(.commit(job, completion))
    }

    /// The answer recorded with an idempotency key, read from `write_receipts`.
    public func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]? {
        try read { db in try WriteReceipts.answer(for: id, in: db) }
    }

    /// The documents at `paths` from one snapshot: a lone read outside a transaction may come from the point-read
    /// cache; several, or any in a transaction, read SQLite.
    public func documents(
        at paths: [ResourcePath], transaction: TransactionID?
    ) throws(HearthError) -> [StoredDocument?] {
        // Several documents must come from one snapshot, and a transaction reads its own: only a lone read is cached.
        if transaction == nil, paths.count == 1, let cached = cache.lookup(paths[0]) {
            switch cached {
            case .hit(let document):
                return [document]
            case .miss(let ticket):
                let document = try read { db in try DocumentRows.fetch(paths[0], in: db) }
                if let document { cache.fill(document, ticket: ticket) }
                return [document]
            }
        }
        let budget = configuration.maxResultBytes
        let documents = try read(in: transaction) { db in
            let fetch = {
                var spent = ResultBudget(limit: budget)
                return try paths.map { path in
                    let document = try DocumentRows.fetch(path, in: db)
                    if let document { try spent.spend(document) }
                    return document
                }
            }
            // A read-only transaction's snapshot connection is already inside its read transaction, and one
            // statement reads one snapshot by itself: only several reads need BEGIN and COMMIT around them.
            return db.isInTransaction || paths.count == 1 ? try fetch() : try db.transaction(.deferred, fetch)
        }
        if let transaction { transactions.record(transaction, documents: Array(zip(paths, documents))) }
        return documents
    }

    /// Plans the query over the index entries and runs it on a read connection or the transaction's snapshot.
    public func runQuery(_ query: StructuredQuery, transaction: TransactionID?) throws(HearthError) -> QueryResults {
        let budget = configuration.maxResultBytes
        let results = try read(in: transaction) { db in
            try QueryRunner.run(query, catalog: catalog, in: db, budget: budget)
        }
        if let transaction { transactions.record(transaction, query: query, results: results.documents) }
        return results
    }

    /// Runs the query's plan and aggregates its matches.
    public func runAggregation(
        _ query: AggregationQuery, transaction: TransactionID?
    ) throws(HearthError) -> AggregationResults {
        if let transaction, !transactions.isReadOnly(transaction) {
            // A read-write transaction must see the same documents at commit; record them as a query.
            _ = try runQuery(query.query, transaction: transaction)
        }
        return try read(in: transaction) { db in try QueryRunner.aggregate(query, catalog: catalog, in: db) }
    }

    /// Starts a transaction on a read connection of its own, its snapshot pinned from the start.
    public func beginTransaction(_ mode: TransactionMode, caller: String?) throws(HearthError) -> TransactionID {
        do {
            return try transactions.begin(mode, caller: caller) {
                var options = SQLiteConnection.Options()
                options.readOnly = true
                options.create = false
                let connection = try SQLiteConnection(path: databasePath, options: options)
                // A read transaction with one read in it pins the snapshot until ROLLBACK.
                try connection.execute("BEGIN")
                _ = try connection.fetchOne("SELECT COUNT(*) FROM composite_indexes")
                return connection
            }
        } catch let error as HearthError {
            throw error
        } catch {
            throw .internal("Cannot begin the transaction: \(error)")
        }
    }

    /// Ends a transaction without committing.
    public func rollback(_ transaction: TransactionID) throws(HearthError) {
        try transactions.rollback(transaction)
    }

    /// One page of a collection's documents (see `DocumentListing`).
    public func listDocuments(_ request: ListDocumentsRequest) throws(HearthError) -> ListDocumentsPage {
        let budget = configuration.maxResultBytes
        return try read { db in try DocumentListing.page(request, catalog: catalog, in: db, budget: budget) }
    }

    /// The IDs of the collections directly below `parent`, after `after`, in order.
    public func collectionIDs(under parent: ResourcePath, after: String?, limit: Int) throws(HearthError) -> [String] {
        try read { db in try DocumentListing.collectionIDs(under: parent, after: after, limit: limit, in: db) }
    }

    /// Queues the emulator's wipe on the writer: every document, its index entries, and a change-log row each.
    public func deleteAllDocuments(completion: @escaping @Sendable (Result<Int, HearthError>) -> Void) {
        writer.submit(.deleteAll(completion))
    }

    /// Change-log rows after `sequence`, oldest first.
    public func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] {
        try read { db in try ChangeLog.records(after: sequence, limit: limit, in: db) }
    }

    /// Commit counters and the size of the database file with its write-ahead log, for `/metrics`.
    public func statistics() -> StoreStatistics {
        var statistics = writer.counters.withLock { $0 }
        let manager = FileManager.default
        for suffix in ["", "-wal"] {
            let size = (try? manager.attributesOfItem(atPath: databasePath + suffix)[.size] as? Int) ?? 0
            statistics.databaseBytes += size
        }
        return statistics
    }

    /// Runs an atomic change on the writer thread, inside the group commit, with its own savepoint and commit time
    /// (how the tree engine writes).
    func submitAtomic(
        freesSpace: Bool = false,
        _ body: @escaping @Sendable (SQLiteConnection, Timestamp) throws -> CommitWriter.AtomicOutcome,
        completion: @escaping @Sendable (Result<CommitWriter.AtomicOutcome, any Error>) -> Void
    ) {
        writer.submit(.atomic(body, completion, freesSpace: freesSpace))
    }

    /// Runs a read on a pooled read connection (how the tree engine reads).
    func withReader<T>(_ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        try read(body)
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

    /// Rolls back open transactions, stops the checkpointer and the writer (after its queued commits), closes the
    /// readers and releases the data directory. Idempotent.
    public func close() {
        transactions.closeAll()
        checkpointer.stop()
        writer.stop()
        readers.close()
        directoryLock.release()
    }

    deinit { close() }

    /// Runs a read on a pooled connection, or on a read-only transaction's snapshot.
    private func read<T>(
        in transaction: TransactionID?, _ body: (SQLiteConnection) throws -> T
    ) throws(HearthError) -> T {
        let snapshot = try transaction.flatMap { id throws(HearthError) in try transactions.snapshot(id) }
        do {
            if let snapshot { return try snapshot.connection.withLock { try body($0) } }
            return try readers.withConnection(body)
        } catch {
            throw Self.readFailure(error)
        }
    }

    /// Runs a read on a pooled connection.
    private func read<T>(_ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        try read(in: nil, body)
    }

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
