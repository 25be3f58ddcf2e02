import Dispatch
public import HearthCore
internal import HearthPostgres
public import HearthStore

extension PostgresDocumentStore {
    /// Plans the query over the index entries and runs it with the engine-neutral `QueryRunner` SQLite's engine uses,
    /// every page of every scan in one read-only REPEATABLE READ transaction, so the pages agree with each other
    /// whatever commits meanwhile. In a read-only transaction it reads that transaction's snapshot; in a read-write
    /// one the latest data, recording the query and its results so the commit can rerun it (``lockAndValidate``).
    public func runQuery(_ query: StructuredQuery, transaction: TransactionID?) throws(HearthError) -> QueryResults {
        let (catalog, budget) = (catalog, configuration.maxResultBytes)
        let run = { (db: PostgresConnection) in
            try QueryRunner.run(query, catalog: catalog, in: PostgresIndexScanner(db: db), budget: budget)
        }
        guard let transaction else {
            return try refreshingCatalog { () throws(HearthError) in try readSnapshot("running a query", run) }
        }
        let (results, readWrite) = try refreshingCatalog { () throws(HearthError) in
            try read(in: transaction, "running a query in a transaction", run)
        }
        if readWrite { try transactions.record(transaction, query: query, results: results.documents) }
        return results
    }

    /// Runs the query's plan in one snapshot and aggregates its matches (counts from the index alone when the plan
    /// is exact), as SQLite's engine does. In a read-write transaction the query's matches are recorded as a query
    /// first, so a commit after another changed them aborts.
    public func runAggregation(
        _ query: AggregationQuery, transaction: TransactionID?
    ) throws(HearthError) -> AggregationResults {
        let catalog = catalog
        let aggregate = { (db: PostgresConnection) in
            try QueryRunner.aggregate(query, catalog: catalog, in: PostgresIndexScanner(db: db))
        }
        guard let transaction else {
            return try refreshingCatalog { () throws(HearthError) in
                try readSnapshot("running an aggregation query", aggregate)
            }
        }
        if !transactions.isReadOnly(transaction) {
            // A read-write transaction must see the same documents at commit; record them as a query.
            _ = try runQuery(query.query, transaction: transaction)
        }
        return try refreshingCatalog { () throws(HearthError) in
            try read(in: transaction, "running an aggregation query in a transaction", aggregate).0
        }
    }

    /// Runs `body`, and once more when it was refused for an index (missing, or building) and another node has
    /// changed the catalog since this one read it: a query never pays for the check unless it needs an index.
    func refreshingCatalog<T>(_ body: () throws(HearthError) -> T) throws(HearthError) -> T {
        do {
            return try body()
        } catch  where error.code == .failedPrecondition {
            let changed = try read("reading the index catalog") { db in try refreshCatalog(in: db) }
            guard changed else { throw error }
            return try body()
        }
    }

    /// Rereads the catalog when another node (or a finished build) changed it since; whether it did. Commits call
    /// it holding the commit gate shared, which catalog changes take exclusively (PostgresCommitOrder), so the
    /// indexes whose entries they write are the ones in force.
    @discardableResult
    func refreshCatalog(in db: PostgresConnection) throws -> Bool {
        let known = catalogVersion.withLock { $0 }
        let now = try PostgresIndexCatalog.version(in: db)
        guard now > known else { return false }
        let entries = try PostgresIndexCatalog.load(in: db)
        // Versions only grow: a reread that lost the race to a newer one (a query's beside a commit's) is dropped.
        let applied = catalogVersion.withLock { version in
            guard now > version else { return false }
            catalog.replaceAll(entries)
            version = now
            return true
        }
        // A build another node began (and may not finish): this node takes steps too.
        if applied { for entry in entries where !entry.ready { buildIndex(entry.id) } }
        return applied
    }

    /// Declared indexes, whether each is ready, and a build's progress — as every node sees them: the catalog is
    /// reread first when another node changed it (an index declared or built there). Unreachable, the last known.
    public func indexStatuses() -> [IndexStatus] {
        _ = try? read("reading the index catalog") { db in
            guard try !refreshCatalog(in: db), catalog.all.contains(where: { !$0.ready }) else { return }
            // A build's progress moves without a new catalog version: read it as the stepping nodes left it.
            for entry in try PostgresIndexCatalog.load(in: db) where !entry.ready {
                catalog.recordProgress(
                    of: entry.id, completed: entry.completedDocuments, estimated: entry.estimatedDocuments, ready: false
                )
            }
        }
        return catalog.all.map {
            IndexStatus(
                definition: $0.definition, ready: $0.ready, completedDocuments: $0.completedDocuments,
                estimatedDocuments: $0.estimatedDocuments)
        }
    }

    /// The composite indexes refused queries asked for since start, still not declared.
    public func missingIndexes() -> [IndexDefinition] { catalog.missingDefinitions }

    /// Takes part in the build of a composite index: one step at a time on the writer queue, each step its own
    /// transaction between commits, so a commit never misses an entry the build writes nor the reverse. Every node
    /// that knows the index is building steps it from the cursor stored with it, so a build goes on when the node
    /// that began it is gone. A step cut off from PostgreSQL is tried again a second later. Does nothing
    /// when this node is stepping that build already.
    func buildIndex(_ id: Int64) {
        guard building.withLock({ $0.insert(id).inserted }) else { return }
        stepBuild(id)
    }

    private func stepBuild(_ id: Int64) {
        writerQueue.async { [weak self] in
            guard let self else { return }
            let progress: PostgresIndexCatalog.BuildProgress?
            do {
                progress = try writer.withTransaction("BEGIN") { db in
                    try PostgresIndexCatalog.buildStep(
                        catalog, indexID: id, limit: configuration.indexBuildStepDocuments, in: db)
                }
            } catch {
                // PostgreSQL out of reach: the stored cursor keeps the place, so try again shortly. Anything else
                // (or a closed store) leaves the build to the next catalog change or start, as before.
                let unreachable = (error as? PostgresError)?.isConnectionFailure == true
                if unreachable, !isClosed.withLock({ $0 }) {
                    writerQueue.asyncAfter(deadline: .now() + .seconds(1)) { [weak self] in self?.stepBuild(id) }
                } else {
                    building.withLock { _ = $0.remove(id) }
                }
                return
            }
            guard let progress else {
                building.withLock { _ = $0.remove(id) }
                return
            }
            catalog.recordProgress(
                of: id, completed: progress.completed, estimated: progress.estimated, ready: progress.ready)
            if progress.ready {
                building.withLock { _ = $0.remove(id) }
            } else {
                stepBuild(id)
            }
        }
    }
}
