public import HearthCore
import HearthSQLite
public import HearthStore

/// The tree engine on a `SQLiteDatabase`, shared with the document engine: its single writer (every write is a job
/// inside the group commit, with its own savepoint and commit time) and its pool of read connections. It plays all
/// three roles of a tree engine (``TreeReader``, ``TreeCommitter``, ``TreeChangeLog``).
public final class SQLiteTreeStore: TreeStore {
    private let database: SQLiteDatabase
    /// Committed tree changes, published right after each `COMMIT`, in commit order (the database's tree feed).
    public var treeFeed: ChangeFeed<TreeChange> { database.treeFeed }

    /// A tree engine on `database`, which its owner closes. Its change log keeps the database's
    /// `changeLogRetention` rows.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    /// A tree engine on the database of `store`.
    public convenience init(store: SQLiteDocumentStore) {
        self.init(database: store.database)
    }

    /// Reads the node at a location and the change-log sequence it reflects, in one read transaction.
    public func read(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeSnapshot {
        try database.read { db in
            try db.transaction(.deferred) {
                TreeSnapshot(
                    node: try SQLiteTreeRows(db: db).node(namespace, path),
                    sequence: try TreeChangeTable.lastSequence(in: db)
                )
            }
        }
    }

    /// The leaf at a location, or its children's keys (one seek per child).
    public func shallow(
        _ namespace: String, at path: TreePath, after: String?, limit: Int?, auth: AuthContext?
    ) throws(HearthError) -> TreeShallow {
        try database.read { db in try SQLiteTreeRows(db: db).shallow(namespace, path, after: after, limit: limit) }
    }

    /// The priority of the node at a location: one row.
    public func priority(_ namespace: String, at path: TreePath) throws(HearthError) -> TreeLeaf? {
        try database.read { db in try SQLiteTreeRows(db: db).priority(namespace, path) }
    }

    /// Change-log entries after `sequence`, oldest first.
    public func treeChanges(after sequence: Int64, limit: Int) throws(HearthError) -> [TreeChange] {
        try database.changes(in: TreeChangeTable.self, after: sequence, limit: limit)
    }

    /// The last sequence the tree's change log handed out, from the one change-log reader.
    public func treeHead() throws(HearthError) -> Int64 {
        try database.head(of: TreeChangeTable.self)
    }

    /// The answer recorded with a write's idempotency key (the receipts live beside the documents' own).
    public func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]? {
        try database.read { db in try WriteReceipts.answer(for: id, in: db) }
    }

    /// Queues the write for the database's single writer, which applies it in its own savepoint of a group commit
    /// (see `TreeWriteApplier`), records its receipt and publishes its change on ``treeFeed`` after `COMMIT`.
    public func write(
        _ write: TreeWrite, completion: @escaping @Sendable (Result<TreeWriteOutcome, HearthError>) -> Void
    ) {
        database.submit(.tree(write, completion))
    }
}
