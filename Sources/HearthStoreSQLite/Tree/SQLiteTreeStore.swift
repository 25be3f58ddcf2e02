public import HearthCore
import HearthSQLite
public import HearthStore
import Synchronization

/// The tree engine on a `SQLiteDatabase`, shared with the document engine: its single writer (every write is a job
/// inside the group commit, with its own savepoint and commit time) and its pool of read connections.
public final class SQLiteTreeStore: TreeStore {
    private let database: SQLiteDatabase
    /// How many change-log rows to keep.
    private let changeLogRetention: Int
    private let writesSincePrune = Mutex(0)
    /// Committed tree changes, published right after each `COMMIT`, in commit order.
    public let treeFeed = ChangeFeed<TreeChange>()

    /// A tree engine on `database`, which its owner closes.
    public init(database: SQLiteDatabase, changeLogRetention: Int = 100_000) {
        self.database = database
        self.changeLogRetention = changeLogRetention
    }

    /// A tree engine on the database of `store`.
    public convenience init(store: SQLiteDocumentStore, changeLogRetention: Int = 100_000) {
        self.init(database: store.database, changeLogRetention: changeLogRetention)
    }

    /// Reads the node at a location and the change-log sequence it reflects, in one read transaction.
    public func read(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeSnapshot {
        try database.read { db in
            try db.transaction(.deferred) {
                TreeSnapshot(
                    node: try TreeRows.node(namespace, path, in: db), sequence: try TreeChangeLog.lastSequence(in: db))
            }
        }
    }

    /// The leaf at a location, or its children's keys (one seek per child).
    public func shallow(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeShallow {
        try database.read { db in try TreeRows.shallow(namespace, path, in: db) }
    }

    /// The priority of the node at a location: one row.
    public func priority(_ namespace: String, at path: TreePath) throws(HearthError) -> TreeLeaf? {
        try database.read { db in try TreeRows.priority(namespace, path, in: db) }
    }

    /// Change-log entries after `sequence`, oldest first.
    public func treeChanges(after sequence: Int64, limit: Int) throws(HearthError) -> [TreeChange] {
        try database.read { db in try TreeChangeLog.changes(after: sequence, limit: limit, in: db) }
    }

    /// The answer recorded with a write's idempotency key (the receipts live beside the documents' own).
    public func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]? {
        try database.read { db in try WriteReceipts.answer(for: id, in: db) }
    }

    /// Applies a write as an atomic job of the group commit; see `apply(_:commitTime:in:)`.
    public func write(
        _ write: TreeWrite, completion: @escaping @Sendable (Result<TreeWriteOutcome, HearthError>) -> Void
    ) {
        database.submit(
            .atomic(
                { [self] db, commitTime in try apply(write, commitTime: commitTime.microseconds, in: db) },
                { result in
                    completion(
                        result.mapError(Self.storageError).flatMap { outcome in
                            guard let value = outcome.value as? TreeWriteOutcome else {
                                return .failure(.internal("The tree write produced no outcome."))
                            }
                            return .success(value)
                        })
                }, freesSpace: write.onlyDeletes))
    }

    /// The write's body on the writer connection: fill in server values against the data as it is now, let the
    /// rules judge the result, check `if-match`, replace the touched ranges, log the change, and publish it after
    /// `COMMIT`. Rules come before `if-match` so a caller the rules refuse learns nothing from a 412.
    private func apply(
        _ write: TreeWrite, commitTime: Int64, in db: SQLiteConnection
    ) throws -> CommitWriter.AtomicOutcome {
        let nowMillis = commitTime / 1000
        let kind: TreeChange.Kind
        var updates: [TreeChange.Update] = []
        switch write.operation {
        case .put(let value):
            kind = .put
            updates = [
                TreeChange.Update(path: .root, node: try resolve(value, at: write.path, write.namespace, nowMillis, db))
            ]
        case .patch(let entries):
            kind = .patch
            // Every server value sees the data as it was before this update, as Firebase resolves them.
            for entry in entries.sorted(by: { $0.path < $1.path }) {
                let node = try resolve(
                    entry.value, at: write.path.appending(entry.path), write.namespace, nowMillis, db)
                updates.append(TreeChange.Update(path: entry.path, node: node))
            }
        case .priority(let priority):
            kind = .put
            var node = try TreeRows.node(write.namespace, write.path, in: db)
            node?.priority = priority
            updates = [TreeChange.Update(path: .root, node: node)]
        }
        if let judge = write.judge {
            let namespace = write.namespace
            let proposal = TreeWriteProposal(
                namespace: namespace, path: write.path, updates: updates, nowMillis: nowMillis,
                current: { path in try TreeRows.node(namespace, path, in: db) },
                currentPriority: { path in try TreeRows.priority(namespace, path, in: db) })
            guard try judge(proposal) else {
                return CommitWriter.AtomicOutcome(value: TreeWriteOutcome.denied, afterCommit: nil)
            }
        }
        if let expected = write.ifMatch {
            let current = try TreeRows.node(write.namespace, write.path, in: db)
            let etag = TreeETag.of(current)
            if etag != expected {
                return CommitWriter.AtomicOutcome(
                    value: TreeWriteOutcome.preconditionFailed(current: current, etag: etag), afterCommit: nil)
            }
        }
        for update in updates {
            try TreeRows.put(update.node, write.namespace, at: write.path.appending(update.path), in: db)
        }
        let change = try TreeChangeLog.append(
            commitTime: commitTime, namespace: write.namespace, kind: kind, path: write.path, updates: updates, in: db)
        if let receipt = write.receipt {
            try WriteReceipts.record(
                receipt.id, answer: receipt.answer(change), retention: database.configuration.writeReceiptRetention,
                in: db
            )
        }
        try pruneIfDue(db)
        let feed = treeFeed
        return CommitWriter.AtomicOutcome(
            value: TreeWriteOutcome.committed(change), afterCommit: { feed.publish([change]) }, writes: updates.count)
    }

    private func resolve(
        _ value: TreeWriteValue, at path: TreePath, _ namespace: String, _ nowMillis: Int64, _ db: SQLiteConnection
    ) throws -> TreeNode? {
        guard value.hasServerValues else { return value.node }
        var current: [TreePath: TreeNode] = [:]
        for site in value.serverValues {
            if case .increment = site.value, let node = try TreeRows.node(namespace, path.appending(site.path), in: db)
            {
                current[site.path] = node
            }
        }
        return value.resolved(nowMillis: nowMillis) { current[$0] }
    }

    private func pruneIfDue(_ db: SQLiteConnection) throws {
        let due = writesSincePrune.withLock { count -> Bool in
            count += 1
            if count < 1000 { return false }
            count = 0
            return true
        }
        if due { try TreeChangeLog.prune(retention: changeLogRetention, in: db) }
    }

    private static func storageError(_ error: any Error) -> HearthError {
        if let error = error as? HearthError { return error }
        if let error = error as? SQLiteError, error.isBusy {
            return HearthError(.unavailable, "The database is busy; retry.")
        }
        return .internal("The tree write failed: \(error)")
    }
}

extension TreeWrite {
    /// Whether the write only removes data (a `DELETE`, a `PUT` or `PATCH` of nulls), so a full disk still lets it
    /// through.
    var onlyDeletes: Bool {
        switch operation {
        case .put(let value): value.node == nil && !value.hasServerValues
        case .patch(let members): members.allSatisfy { $0.value.node == nil && !$0.value.hasServerValues }
        case .priority: false
        }
    }
}
