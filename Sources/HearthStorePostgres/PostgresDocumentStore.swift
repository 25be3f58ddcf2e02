import Dispatch
import Foundation
public import HearthCore
internal import HearthPostgres
public import HearthStore
import Synchronization

/// The PostgreSQL document engine (issue 22): atomic commits with preconditions, transforms, the rules' judge and
/// write receipts, each writing its documents' index entries; point reads; queries and aggregations over the index
/// entries (PostgresDocumentStore+Query), in transactions too; transactions shared by every node
/// (PostgresDocumentStore+Transactions); listings in any order (PostgresDocumentStore+Listing); the change log in
/// commit order and its feed; the wipe.
///
/// Commits run side by side, up to ``Configuration/commitLanes`` at once on a node (``CommitLanes``), each in its own
/// PostgreSQL transaction; commits of every node run side by side unless they touch the same documents, and are
/// stamped with their change-log numbers and time in commit order where they conflict (``PostgresCommitOrder``). The
/// feed delivers every node's commits in that one sequence order on every node (``PostgresLogFollower``).
public final class PostgresDocumentStore: DocumentStore {
    /// Settings of the engine.
    public struct Configuration: Sendable {
        /// The database: a libpq conninfo string or a `postgres://` URL.
        public var conninfo: String
        /// The wall clock commit times come from; tests move it.
        public var clock: WallClock = .system
        /// How many write receipts to keep (as SQLite's engine).
        public var writeReceiptRetention: Int = 100_000
        /// How many document commits of this node run at once (``CommitLanes``), each on a connection of its own.
        public var commitLanes: Int = 8
        /// Read connections kept open between reads.
        public var idleReadConnections: Int = 4
        /// How often the node reads the change logs for other nodes' commits even when no announcement came (a
        /// `NOTIFY` lost while a connection was down); announced commits are read at once, its own delivered at once.
        public var feedPollInterval: Duration = .seconds(1)
        /// Declared composite indexes (from `hearth.indexes.json`); new ones are built in steps between commits.
        public var indexes: [IndexDefinition] = []
        /// How many documents one step of an index build indexes (one writer job, between commits).
        public var indexBuildStepDocuments: Int = 500
        /// The most bytes of documents one query answers with (as SQLite's engine).
        public var maxResultBytes: Int = 64 * 1024 * 1024
        /// For tests of the commit order: called in each commit's transaction once it took its change-log numbers
        /// (given), just before `COMMIT`; the commit then sleeps that many seconds in PostgreSQL (`pg_sleep`), holding
        /// its numbers, so that commits taking later ones commit first.
        package var pauseAfterNumbering: (@Sendable (_ sequences: [Int64]) -> Double)?
        /// For tests of the tree's write order: as ``pauseAfterNumbering``, in each tree write (PostgresTreeStore),
        /// given its one tree change-log number.
        package var pauseAfterTreeNumbering: (@Sendable (_ sequences: [Int64]) -> Double)?
        /// Development mode: a query lacking its composite index is answered by a scan, and the index is learned
        /// (kept in `learned_indexes`, declared again at each start in this mode) and built, as SQLite's engine does.
        public var learnsIndexes = false
        /// Called once per index learned, with its definition (the server logs it).
        public var onIndexLearned: (@Sendable (IndexDefinition) -> Void)?
        /// Whether opening reconciles the stored composite indexes with ``indexes`` (a server start); `false` takes
        /// them as stored and builds nothing — a command beside the servers (`hearth users`), which declares none
        /// and must not drop theirs.
        public var reconcilesIndexes = true

        /// Settings for the database at `conninfo`.
        public init(conninfo: String) {
            self.conninfo = conninfo
        }
    }

    /// The engine's settings.
    public let configuration: Configuration
    /// Committed document changes of every node on the database, in commit order, each once.
    public let changeFeed = ChangeFeed<ChangeRecord>()
    /// What feeds ``changeFeed`` from the change log.
    let follower: PostgresLogFollower<ChangeRecord>
    /// Announces this node's commits to the others and hears theirs (the tree's follower listens too).
    let wakeUp: PostgresFeedWakeUp

    let readers: PostgresConnections
    let writer: PostgresConnections
    /// Runs the wipe, index build steps and tree writes one at a time; each is answered once on the feed
    /// (``follower``'s queue), which the next does not wait for.
    let writerQueue = DispatchQueue(label: "hearth.postgres.writer")
    /// Runs document commits, several at once.
    let commitLanes: CommitLanes
    let counters = Mutex(Counters())
    /// The composite indexes, as stored in `composite_indexes` (see PostgresDocumentStore+Query).
    let catalog = IndexCatalog()
    /// The `index_catalog_version` ``catalog`` was read at.
    let catalogVersion = Mutex<Int64>(0)
    /// The composite index builds this node is taking steps in.
    let building = Mutex<Set<Int64>>([])
    /// Set by ``close()``: a build step that failed then is not tried again.
    let isClosed = Mutex(false)
    /// Open transactions, kept in the database for every node.
    let transactions: TransactionRegistry<PostgresSnapshotName>
    /// The snapshots of the read-only transactions this node began.
    let exporters: PostgresSnapshotExporters

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
        writer = PostgresConnections(conninfo: configuration.conninfo, maxIdle: max(1, configuration.commitLanes) + 1)
        commitLanes = CommitLanes(label: "hearth.postgres.commits", width: configuration.commitLanes)
        let limits = TransactionRegistry<PostgresSnapshotName>.Limits()
        let now: @Sendable () -> Date = { [clock = configuration.clock] in
            Date(timeIntervalSince1970: clock.unixSeconds)
        }
        let exporters = PostgresSnapshotExporters(
            conninfo: configuration.conninfo, lifetime: limits.snapshotLifetime, now: now)
        self.exporters = exporters
        transactions = TransactionRegistry(
            limits: limits, now: now, ledger: PostgresTransactionLedger(connections: readers),
            closeSnapshot: { name in exporters.close(name) })
        let head: Int64
        let (toBuild, version): ([Int64], Int64)
        do {
            (toBuild, version) = try writer.withConnection(idempotent: true) { [catalog] db in
                try PostgresSchema.migrate(db)
                try PostgresIndexCatalog.backfill(in: db)
                // Learned indexes stay declared only in development mode; outside it they are dropped like any
                // undeclared index (their definitions stay in `learned_indexes`).
                var definitions = configuration.indexes
                if configuration.learnsIndexes {
                    for learned in try PostgresLearnedIndexes.load(in: db) where !definitions.contains(learned) {
                        definitions.append(learned)
                    }
                }
                guard configuration.reconcilesIndexes else {
                    catalog.replaceAll(try PostgresIndexCatalog.load(in: db))
                    return ([], try PostgresIndexCatalog.version(in: db))
                }
                return try PostgresIndexCatalog.reconcile(catalog, with: definitions, in: db)
            }
            head = try readers.withConnection(idempotent: true) { db in
                try PostgresCommitOrder.finalPoint(of: .documents, in: db)
            }
        } catch {
            throw hearthError(error, doing: "migrating the schema")
        }
        wakeUp = PostgresFeedWakeUp(conninfo: configuration.conninfo)
        let log = PostgresLogFollower.Log(
            entries: { [readers] after, through, limit in
                try readers.withConnection(idempotent: true) { db in
                    try PostgresChangeLog.records(after: after, through: through, limit: limit, in: db)
                }
            },
            finalPoint: { [readers] in
                try readers.withConnection(idempotent: true) { db in
                    try PostgresCommitOrder.finalPoint(of: .documents, in: db)
                }
            }, sequence: \.sequence, feed: changeFeed)
        follower = PostgresLogFollower(
            log: log, head: head, interval: configuration.feedPollInterval, wakeUp: wakeUp)
        catalogVersion.withLock { $0 = version }
        for id in toBuild { buildIndex(id) }
        if configuration.learnsIndexes {
            catalog.startLearning { [weak self] definition in self?.learn(definition) }
        }
    }

    /// The composite indexes development mode learned on this database, oldest first.
    public func learnedIndexes() throws(HearthError) -> [IndexDefinition] {
        try read("reading the learned indexes") { db in try PostgresLearnedIndexes.load(in: db) }
    }

    /// The schema versions applied to the database, oldest first.
    public func schemaVersions() throws(HearthError) -> [Int64] {
        try read("reading the schema version") { db in try PostgresSchema.appliedVersions(db) }
    }

    // MARK: - Reads

    /// The documents at `paths`, from one snapshot (a read-only transaction's, in one).
    public func documents(
        at paths: [ResourcePath], transaction: TransactionID?
    ) throws(HearthError) -> [StoredDocument?] {
        for path in paths where !path.isDocument {
            throw .invalidArgument("\"\(path)\" is not a document path.")
        }
        if let transaction { return try documents(at: paths, in: transaction) }
        if paths.count == 1 {
            return try read("reading a document") { db in [try PostgresDocumentRows.fetch(paths[0], in: db)] }
        }
        return try readSnapshot("reading documents") { db in try fetchWithinBudget(paths, in: db) }
    }

    /// Reads `paths` in order on `db`, refusing with `RESOURCE_EXHAUSTED` an answer that would pass
    /// `--max-result-bytes` (as SQLite's engine does), counted as the documents are read.
    func fetchWithinBudget(_ paths: [ResourcePath], in db: PostgresConnection) throws -> [StoredDocument?] {
        var spent = ResultBudget(limit: configuration.maxResultBytes)
        return try paths.map { path in
            let document = try PostgresDocumentRows.fetch(path, in: db)
            if let document { try spent.spend(document) }
            return document
        }
    }

    /// The answer recorded with an idempotency key.
    public func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]? {
        try read("reading a write receipt") { db in try PostgresWriteReceipts.answer(for: id, in: db) }
    }

    // MARK: - Change log

    /// Change-log rows after `sequence`, oldest first, up to the log's final point (PostgresCommitOrder), so a reader
    /// resuming from the last one it got never skips a change committed later.
    public func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] {
        try read("reading the change log") { db in
            try PostgresChangeLog.records(
                after: sequence, through: try PostgresCommitOrder.finalPoint(of: .documents, in: db), limit: limit,
                in: db)
        }
    }

    /// The log's final point: every change at or below it that will ever commit has committed.
    public func head() throws(HearthError) -> Int64 {
        try read("reading the change log's head") { db in try PostgresCommitOrder.finalPoint(of: .documents, in: db) }
    }

    /// The final point, and the last commit time stamped before it was read: every commit stamped by then has a
    /// number at or below it (times and numbers are handed out together, PostgresCommitOrder), and every later one a
    /// later time, whatever this node's clock says. `nil` before the first commit.
    public func headAndTime() throws(HearthError) -> (sequence: Int64, time: Timestamp?) {
        try read("reading the change log's head") { db in
            let time = try PostgresCommitOrder.lastStampedTime(in: db)
            return (
                try PostgresCommitOrder.finalPoint(of: .documents, in: db),
                time > 0 ? Timestamp(microseconds: time) : nil
            )
        }
    }

    /// Always: the log is never pruned. Its numbers have gaps — a commit that rolled back after taking its numbers,
    /// and a promoted standby's sequence, which resumes past the numbers the old primary had logged ahead — so
    /// coverage cannot be told from the entry after `sequence` as on SQLite.
    public func covers(after sequence: Int64) throws(HearthError) -> Bool { true }

    // MARK: - Administration

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

    /// `UNAVAILABLE` when no connection to the database answers a round trip now (one read connection's `SELECT 1`,
    /// reconnecting once when the idle one was cut), `nil` when one does.
    public func unavailability() -> HearthError? {
        do {
            _ = try read("checking the connection") { db in try db.query("SELECT 1") }
            return nil
        } catch {
            return error
        }
    }

    /// Waits for queued commits and their deliveries, then closes every connection. Idempotent. Not from a feed
    /// subscriber, which runs on the follower's queue this waits for.
    public func close() {
        isClosed.withLock { $0 = true }
        follower.stop()
        wakeUp.stop()
        exporters.closeAll()
        commitLanes.drain()
        writerQueue.sync {}
        follower.drain()
        writer.close()
        readers.close()
    }

    // No waiting here: queued jobs hold the engine, so none is left, and the last release may come from the job
    // that just ran on the writer queue itself.
    deinit {
        wakeUp.stop()
        exporters.closeAll()
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
}
