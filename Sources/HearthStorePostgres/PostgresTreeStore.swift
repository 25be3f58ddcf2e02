import Dispatch
public import HearthCore
internal import HearthPostgres
public import HearthStore

/// The PostgreSQL tree engine (issue 22): the Realtime Database tree in the database of a ``PostgresDocumentStore``,
/// on its connections and its writer queue, playing all three roles of a tree engine (``TreeReader``,
/// ``TreeCommitter``, ``TreeChangeLog``) as SQLite's does, with the same tree logic (``TreeWriteApplier``).
///
/// Each write is one PostgreSQL transaction that first takes the `commit_clock` row lock, so tree writes of every
/// node are still serialized and their times strictly increase (document commits no longer take it: see
/// PostgresCommitOrder; moving the tree to that scheme too is still to do). The feed delivers every node's tree
/// writes in commit order; make one tree engine per document engine, since each owns its feed.
public final class PostgresTreeStore: TreeStore {
    private let store: PostgresDocumentStore
    /// Committed tree changes of every node on the database, in commit order, each once: this node's right after
    /// each `COMMIT`, other nodes' as the log is polled.
    public let treeFeed = ChangeFeed<TreeChange>()
    private let follower: PostgresLogFollower<TreeChange>

    /// A tree engine in the database of `store`, which its owner closes.
    /// - Throws: `UNAVAILABLE` when the log's head cannot be read.
    public init(store: PostgresDocumentStore) throws(HearthError) {
        self.store = store
        let log = PostgresLogFollower.Log(
            entries: { [store] after, through, limit in
                try store.read("reading the tree's change log") { db in
                    try PostgresTreeRows(db: db).changes(after: after, limit: limit).filter { $0.sequence <= through }
                }
            },
            // Numbered under the clock row lock, the tree's log is final up to its head.
            finalPoint: { [store] in
                try store.read("reading the tree's change-log head") { db in try PostgresTreeRows(db: db).head() }
            }, sequence: \.sequence, feed: treeFeed)
        let head = try store.read("reading the tree's change-log head") { db in try PostgresTreeRows(db: db).head() }
        follower = PostgresLogFollower(
            log: log, head: head, interval: store.configuration.feedPollInterval,
            wakeUp: store.wakeUp)
    }

    deinit {
        follower.stop()
    }

    /// The node at a location and the change-log sequence it reflects, from one snapshot.
    public func read(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeSnapshot {
        try store.readSnapshot("reading the tree") { db in
            let rows = PostgresTreeRows(db: db)
            return TreeSnapshot(node: try rows.node(namespace, path), sequence: try rows.head())
        }
    }

    /// The leaf at a location, or its children's keys (one seek per child), from one snapshot.
    public func shallow(
        _ namespace: String, at path: TreePath, after: String?, limit: Int?, auth: AuthContext?
    ) throws(HearthError) -> TreeShallow {
        try store.readSnapshot("reading the tree") { db in
            try PostgresTreeRows(db: db).shallow(namespace, path, after: after, limit: limit)
        }
    }

    /// The priority of the node at a location: one row.
    public func priority(_ namespace: String, at path: TreePath) throws(HearthError) -> TreeLeaf? {
        try store.read("reading a priority") { db in try PostgresTreeRows(db: db).priority(namespace, path) }
    }

    /// Change-log entries after `sequence`, oldest first.
    public func treeChanges(after sequence: Int64, limit: Int) throws(HearthError) -> [TreeChange] {
        try store.read("reading the tree's change log") { db in
            try PostgresTreeRows(db: db).changes(after: sequence, limit: limit)
        }
    }

    /// The last sequence handed to a committed tree change, by any node.
    public func treeHead() throws(HearthError) -> Int64 {
        try store.read("reading the tree's change-log head") { db in try PostgresTreeRows(db: db).head() }
    }

    /// The answer recorded with a write's idempotency key (the receipts live beside the documents' own).
    public func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]? {
        try store.recordedAnswer(forWriteID: id)
    }

    /// Applies the write on the document engine's writer queue, in its own transaction: the clock row lock, the
    /// shared applier, the receipt; its change is published on ``treeFeed`` once `COMMIT` returned.
    public func write(
        _ write: TreeWrite, completion: @escaping @Sendable (Result<TreeWriteOutcome, HearthError>) -> Void
    ) {
        store.writerQueue.async { [self] in
            let applied = Result { () throws(HearthError) -> (outcome: TreeWriteOutcome, writes: Int) in try run(write)
            }
            // Counted as SQLite's writer counts a tree job, for `/metrics`: a commit when it wrote anything (a stale
            // conditional write writes nothing and is neither), a write per location, a failure when it threw.
            store.counters.withLock { counters in
                switch applied {
                case .success(let applied) where applied.writes > 0:
                    counters.commits += 1
                    counters.writes += applied.writes
                case .success: break
                case .failure: counters.failedCommits += 1
                }
            }
            let outcome = applied.map(\.outcome)
            guard case .success(.committed(let change)) = outcome else { return completion(outcome) }
            follower.committed(through: change.sequence) { completion(outcome) }
        }
    }

    private func run(_ write: TreeWrite) throws(HearthError) -> (outcome: TreeWriteOutcome, writes: Int) {
        do {
            return try store.writer.withTransaction("BEGIN") { db in
                let (commitTime, _) = try PostgresChangeLog.beginCommit(now: store.configuration.clock.now(), in: db)
                let applied = try TreeWriteApplier.apply(
                    write, commitTime: commitTime.microseconds, in: PostgresTreeRows(db: db))
                if case .committed(let change) = applied.outcome, let receipt = write.receipt {
                    try PostgresWriteReceipts.record(
                        receipt.id, answer: receipt.answer(change),
                        retention: store.configuration.writeReceiptRetention, in: db)
                }
                return applied
            }
        } catch {
            throw hearthError(error, doing: "writing the tree")
        }
    }
}
