import Foundation
public import HearthCore
internal import HearthSQLite
public import HearthStore
import Synchronization

/// The embedded document engine, on a `SQLiteDatabase`: point reads (with their cache), queries, listings and
/// transactions on the database's readers, and commits as jobs of its single writer, which groups concurrent
/// commits into one transaction (group commit).
public final class SQLiteDocumentStore: DocumentStore {
    /// Settings of the engine (those of its database).
    public typealias Configuration = SQLiteDatabase.Configuration

    /// The database file inside the data directory.
    public static let fileName = SQLiteDatabase.fileName
    /// The disk reserve's file in the data directory (see `DiskReserve`).
    public static let reserveFileName = SQLiteDatabase.reserveFileName

    /// The database this engine reads and writes; the tree engine and the accounts share it.
    public let database: SQLiteDatabase
    /// Whether `close()` closes the database too (it does when this engine opened it).
    private let ownsDatabase: Bool

    var configuration: Configuration { database.configuration }
    var databasePath: String { database.path }
    /// The space held back for deletes on a full disk (`nil` when none is kept).
    var diskReserve: DiskReserve? { database.diskReserve }
    private var cache: DocumentCache { database.cache }
    var catalog: IndexCatalog { database.catalog }
    var transactions: TransactionRegistry<SQLiteConnection> { database.transactions }
    /// Committed document changes, in commit order (the listener hub subscribes here).
    public var changeFeed: ChangeFeed<ChangeRecord> { database.changeFeed }

    /// Opens (creating and migrating if needed) a database in `configuration.directory` of its own, closed with this
    /// engine.
    public convenience init(configuration: Configuration) throws(HearthError) {
        self.init(database: try SQLiteDatabase(configuration: configuration), ownsDatabase: true)
    }

    /// The document engine on an open database, which the caller closes.
    public convenience init(database: SQLiteDatabase) {
        self.init(database: database, ownsDatabase: false)
    }

    private init(database: SQLiteDatabase, ownsDatabase: Bool) {
        self.database = database
        self.ownsDatabase = ownsDatabase
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
        self.database.submit(.commit(job, completion))
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
        if let transaction { try transactions.record(transaction, documents: Array(zip(paths, documents))) }
        return documents
    }

    /// Plans the query over the index entries and runs it on a read connection or the transaction's snapshot.
    public func runQuery(_ query: StructuredQuery, transaction: TransactionID?) throws(HearthError) -> QueryResults {
        let budget = configuration.maxResultBytes
        let results = try read(in: transaction) { db in
            try QueryRunner.run(query, catalog: catalog, in: db, budget: budget)
        }
        if let transaction { try transactions.record(transaction, query: query, results: results.documents) }
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
        database.submit(.deleteAll(completion))
    }

    /// Change-log rows after `sequence`, oldest first.
    public func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] {
        try database.changes(in: ChangeLog.self, after: sequence, limit: limit)
    }

    /// The last sequence the documents' change log handed out, from the one change-log reader.
    public func head() throws(HearthError) -> Int64 {
        try database.head(of: ChangeLog.self)
    }

    /// Commit counters and the size of the database file with its write-ahead log, for `/metrics`.
    public func statistics() -> StoreStatistics {
        database.statistics()
    }

    /// Runs a read on a pooled read connection (how the tree engine reads).
    func withReader<T>(_ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        try database.read(body)
    }

    /// Declared indexes, whether each is ready, and a build's progress.
    public func indexStatuses() -> [IndexStatus] {
        catalog.all.map {
            IndexStatus(
                definition: $0.definition, ready: $0.ready, completedDocuments: $0.completedDocuments,
                estimatedDocuments: $0.estimatedDocuments)
        }
    }

    /// The composite indexes refused queries asked for since start, still not declared.
    public func missingIndexes() -> [IndexDefinition] { catalog.missingDefinitions }

    /// Closes the database when this engine opened it (see `SQLiteDatabase.close()`); otherwise rolls back this
    /// engine's open transactions and leaves the database to its owner. Idempotent.
    public func close() {
        if ownsDatabase { database.close() } else { transactions.closeAll() }
    }

    deinit { close() }

    /// Runs a read on a pooled connection, or on a read-only transaction's snapshot.
    private func read<T>(
        in transaction: TransactionID?, _ body: (SQLiteConnection) throws -> T
    ) throws(HearthError) -> T {
        try database.read(in: transaction, body)
    }

    /// Runs a read on a pooled connection.
    private func read<T>(_ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        try database.read(body)
    }
}
