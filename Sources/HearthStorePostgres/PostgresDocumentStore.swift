import Dispatch
public import HearthCore
internal import HearthPostgres
public import HearthStore
import Synchronization

/// The PostgreSQL document engine (issue 22), first slice: atomic commits with preconditions, transforms, the rules'
/// judge and write receipts; point reads; the change log in commit order and its feed; the wipe. Queries, listings,
/// aggregations and transactions are not there yet and answer `UNIMPLEMENTED` naming what is missing.
///
/// Commits run one at a time on this node's writer queue, each in its own PostgreSQL transaction that first takes
/// the `commit_clock` row lock, so commit times and change sequences follow commit order across nodes too; the feed
/// publishes this node's commits only (several nodes' feeds are later work).
public final class PostgresDocumentStore: DocumentStore {
    /// Settings of the engine.
    public struct Configuration: Sendable {
        /// The database: a libpq conninfo string or a `postgres://` URL.
        public var conninfo: String
        /// The wall clock commit times come from; tests move it.
        public var clock: WallClock = .system
        /// How many write receipts to keep (as SQLite's engine).
        public var writeReceiptRetention: Int = 100_000
        /// Read connections kept open between reads.
        public var idleReadConnections: Int = 4

        /// Settings for the database at `conninfo`.
        public init(conninfo: String) {
            self.conninfo = conninfo
        }
    }

    /// The engine's settings.
    public let configuration: Configuration
    /// Committed document changes of this node's commits, in commit order.
    public let changeFeed = ChangeFeed<ChangeRecord>()

    let readers: PostgresConnections
    let writer: PostgresConnections
    /// Runs commits and the wipe one at a time, publishing each before the next starts.
    let writerQueue = DispatchQueue(label: "hearth.postgres.writer")
    let counters = Mutex(Counters())

    struct Counters {
        var commits = 0
        var writes = 0
        var failedCommits = 0
    }

    /// Connects and migrates the database's schema to this version.
    /// - Throws: `UNAVAILABLE` when the server cannot be reached, `FAILED_PRECONDITION` for a schema newer than this
    ///   Hearth's.
    public init(configuration: Configuration) throws(HearthError) {
        self.configuration = configuration
        readers = PostgresConnections(conninfo: configuration.conninfo, maxIdle: configuration.idleReadConnections)
        writer = PostgresConnections(conninfo: configuration.conninfo, maxIdle: 1)
        do {
            try writer.withConnection(idempotent: true) { db in try PostgresSchema.migrate(db) }
        } catch {
            throw hearthError(error, doing: "migrating the schema")
        }
    }

    /// The schema versions applied to the database, oldest first.
    public func schemaVersions() throws(HearthError) -> [Int64] {
        try read("reading the schema version") { db in try PostgresSchema.appliedVersions(db) }
    }

    // MARK: - Reads

    /// The documents at `paths`, from one snapshot. Transactions are not supported yet.
    public func documents(
        at paths: [ResourcePath], transaction: TransactionID?
    ) throws(HearthError) -> [StoredDocument?] {
        if transaction != nil { throw Self.notYet("Transactions are") }
        for path in paths where !path.isDocument {
            throw .invalidArgument("\"\(path)\" is not a document path.")
        }
        if paths.count == 1 {
            return try read("reading a document") { db in [try PostgresDocumentRows.fetch(paths[0], in: db)] }
        }
        return try readSnapshot("reading documents") { db in
            try paths.map { path in try PostgresDocumentRows.fetch(path, in: db) }
        }
    }

    /// Not yet on PostgreSQL: `UNIMPLEMENTED`.
    public func runQuery(_ query: StructuredQuery, transaction: TransactionID?) throws(HearthError) -> QueryResults {
        throw Self.notYet("Queries are")
    }

    /// Not yet on PostgreSQL: `UNIMPLEMENTED`.
    public func runAggregation(
        _ query: AggregationQuery, transaction: TransactionID?
    ) throws(HearthError) -> AggregationResults {
        throw Self.notYet("Aggregation queries are")
    }

    /// Not yet on PostgreSQL: `UNIMPLEMENTED`.
    public func beginTransaction(_ mode: TransactionMode, caller: String?) throws(HearthError) -> TransactionID {
        throw Self.notYet("Transactions are")
    }

    /// Not yet on PostgreSQL: `UNIMPLEMENTED`.
    public func rollback(_ transaction: TransactionID) throws(HearthError) {
        throw Self.notYet("Transactions are")
    }

    /// Not yet on PostgreSQL: `UNIMPLEMENTED`.
    public func listDocuments(_ request: ListDocumentsRequest) throws(HearthError) -> ListDocumentsPage {
        throw Self.notYet("Listing documents is")
    }

    /// Not yet on PostgreSQL: `UNIMPLEMENTED`.
    public func collectionIDs(under parent: ResourcePath, after: String?, limit: Int) throws(HearthError) -> [String] {
        throw Self.notYet("Listing collection IDs is")
    }

    /// The answer recorded with an idempotency key.
    public func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]? {
        try read("reading a write receipt") { db in try PostgresWriteReceipts.answer(for: id, in: db) }
    }

    // MARK: - Change log

    /// Change-log rows after `sequence`, oldest first.
    public func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] {
        try read("reading the change log") { db in try PostgresChangeLog.records(after: sequence, limit: limit, in: db)
        }
    }

    /// The last sequence handed to a committed change.
    public func head() throws(HearthError) -> Int64 {
        try read("reading the change log's head") { db in try PostgresChangeLog.head(in: db) }
    }

    // MARK: - Administration

    /// No composite indexes yet.
    public func indexStatuses() -> [IndexStatus] { [] }

    /// Commit counters, and the database's size as PostgreSQL reports it (0 when it cannot be asked).
    public func statistics() -> StoreStatistics {
        let counters = counters.withLock { $0 }
        // Metrics only: an unreachable server reports size 0 rather than failing the scrape.
        let bytes = try? readers.withConnection(idempotent: true) { db in
            try db.query("SELECT pg_database_size(current_database())")[0].int(0)
        }
        return StoreStatistics(
            commits: counters.commits, writes: counters.writes, failedCommits: counters.failedCommits,
            databaseBytes: Int(bytes.flatMap { $0 } ?? 0))
    }

    /// Waits for queued commits, then closes every connection. Idempotent. Not from a feed subscriber, which runs
    /// on the writer queue this waits for.
    public func close() {
        writerQueue.sync {}
        writer.close()
        readers.close()
    }

    // No waiting here: queued jobs hold the engine, so none is left, and the last release may come from the job
    // that just ran on the writer queue itself.
    deinit {
        writer.close()
        readers.close()
    }

    /// Runs a read on one connection, mapping its failure (the tree engine's reads too).
    func read<T>(_ what: String, _ body: (PostgresConnection) throws -> T) throws(HearthError) -> T {
        do {
            return try readers.withConnection(idempotent: true, body)
        } catch {
            throw hearthError(error, doing: what)
        }
    }

    /// Runs reads that must agree in one read-only snapshot, mapping its failure (the tree engine's reads too).
    func readSnapshot<T>(_ what: String, _ body: (PostgresConnection) throws -> T) throws(HearthError) -> T {
        do {
            return try readers.withTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
        } catch {
            throw hearthError(error, doing: what)
        }
    }

    /// What this slice of the engine refuses, said plainly.
    static func notYet(_ what: String) -> HearthError {
        HearthError(.unimplemented, "\(what) not supported by the PostgreSQL engine yet (issue 22).")
    }
}
