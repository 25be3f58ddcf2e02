import Dispatch
public import HearthCore
internal import HearthPostgres
public import HearthStore

/// The PostgreSQL tree engine (issue 22): the Realtime Database tree in the database of a ``PostgresDocumentStore``,
/// on its connections and its writer queue, playing all three roles of a tree engine (``TreeReader``,
/// ``TreeCommitter``, ``TreeChangeLog``) as SQLite's does, with the same tree logic (``TreeWriteApplier``).
///
/// Each write is one PostgreSQL transaction, numbered as document commits are (``PostgresCommitOrder``, its own
/// `tree_change_sequence` and numbering lock): it first locks the locations it replaces and their ancestors
/// (``PostgresTreePathLocks``), works out and applies the write, records its receipt, and takes its change-log number
/// last, just before `COMMIT`. So writes to disjoint subtrees do not wait on each other, on one node's database or
/// across nodes, while conflicting writes (same location, an ancestor, a descendant) are numbered in commit order.
/// Reads of the log (``treeHead()``, ``treeChanges(after:limit:)``, the feed, a read's sequence) stop at the log's
/// final point, so none skips a write that took its number earlier and commits later. The feed delivers every node's
/// tree writes in that order; make one tree engine per document engine, since each owns its feed.
///
/// A write's time (ServerValue.TIMESTAMP, the rules' `now`) is the clock's when it starts: times no longer increase
/// strictly across the log (nor with the document commits' on the same database), since no lock orders writes that
/// do not conflict; nothing in the tree's logic compares them.
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
                    try PostgresTreeRows(db: db).changes(after: after, through: through, limit: limit)
                }
            },
            finalPoint: { [store] in
                try store.read("reading the tree's change-log head") { db in
                    try PostgresCommitOrder.finalPoint(of: .tree, in: db)
                }
            }, sequence: \.sequence, feed: treeFeed)
        let head = try store.read("reading the tree's change-log head") { db in
            try PostgresCommitOrder.finalPoint(of: .tree, in: db)
        }
        follower = PostgresLogFollower(
            log: log, head: head, interval: store.configuration.feedPollInterval,
            wakeUp: store.wakeUp)
    }

    deinit {
        follower.stop()
    }

    /// The node at a location and a change-log sequence it reflects: the log's final point, read just before, so the
    /// node holds every change at or below it. Changes numbered above it may have committed before the read too (a
    /// number taken later can commit first); the same snapshot lists them as held, so a listener starting from it
    /// skips them when the feed brings them instead of getting them twice.
    public func read(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeSnapshot {
        try snapshot(namespace, at: path, from: try treeHead())
    }

    /// The node at a location read in one snapshot with the changes of `namespace` numbered above `sequence` that
    /// snapshot holds. `sequence` must be a final point read before it.
    func snapshot(_ namespace: String, at path: TreePath, from sequence: Int64) throws(HearthError) -> TreeSnapshot {
        try store.readSnapshot("reading the tree") { db in
            let rows = PostgresTreeRows(db: db)
            let node = try rows.node(namespace, path)
            return TreeSnapshot(
                node: node, sequence: sequence, alsoHeld: try rows.sequences(of: namespace, after: sequence))
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

    /// Change-log entries after `sequence`, oldest first, up to the log's final point, so a reader resuming from the
    /// last one it got never skips a write committed later.
    public func treeChanges(after sequence: Int64, limit: Int) throws(HearthError) -> [TreeChange] {
        try store.read("reading the tree's change log") { db in
            try PostgresTreeRows(db: db).changes(
                after: sequence, through: try PostgresCommitOrder.finalPoint(of: .tree, in: db), limit: limit)
        }
    }

    /// The log's final point: every tree change at or below it that will ever commit, by any node, has committed.
    public func treeHead() throws(HearthError) -> Int64 {
        try store.read("reading the tree's change-log head") { db in
            try PostgresCommitOrder.finalPoint(of: .tree, in: db)
        }
    }

    /// The answer recorded with a write's idempotency key (the receipts live beside the documents' own).
    public func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]? {
        try store.recordedAnswer(forWriteID: id)
    }

    /// Applies the write on the document engine's writer queue, in its own transaction: the location locks, the
    /// shared applier, the receipt's key, the number, the receipt's answer; its change is published on ``treeFeed``
    /// once `COMMIT` returned, in log order.
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
        var exclusive: Set<Int32> = []
        while true {
            do {
                return try attempt(write, exclusive: exclusive)
            } catch let retry as NeedsExclusiveLocks {
                // Rolled back before it wrote anything; again, with the ancestors it prunes locked exclusively.
                exclusive = retry.keys
            } catch {
                throw hearthError(error, doing: "writing the tree")
            }
        }
    }

    /// A write whose deletions may drop the priority of ancestors it holds only shared: it starts again holding
    /// `keys` exclusively (PostgresTreePathLocks).
    private struct NeedsExclusiveLocks: Error {
        var keys: Set<Int32>
    }

    /// One try of the write in its own transaction.
    private func attempt(_ write: TreeWrite, exclusive: Set<Int32>) throws -> (outcome: TreeWriteOutcome, writes: Int) {
        try store.writer.withTransaction("BEGIN") { db in
            if let keys = try PostgresTreePathLocks.lock(write, exclusive: exclusive, in: db) {
                throw NeedsExclusiveLocks(keys: keys)
            }
            let rows = PostgresTreeRows(db: db)
            let applied = try TreeWriteApplier.apply(
                write, commitTime: store.configuration.clock.now().microseconds, in: rows)
            guard case .committed(var change) = applied.outcome else { return applied }
            // The key first, so that a resend racing this write fails before either takes a number; the answer,
            // which sees the numbered change, once there is one.
            if let receipt = write.receipt {
                try PostgresWriteReceipts.record(
                    receipt.id, answer: [], retention: store.configuration.writeReceiptRetention, in: db)
            }
            // Numbered last, holding the location locks taken first: see PostgresCommitOrder.
            let numbers = try PostgresCommitOrder.numbering(1, of: .tree, in: db)
            change.sequence = numbers[0]
            try rows.insertChange(change)
            if let receipt = write.receipt {
                try PostgresWriteReceipts.setAnswer(receipt.answer(change), for: receipt.id, in: db)
            }
            if let pause = store.configuration.pauseAfterTreeNumbering?(numbers), pause > 0 {
                try db.query("SELECT pg_sleep($1::float8)", [.text(String(pause))])
            }
            return (.committed(change), applied.writes)
        }
    }
}
