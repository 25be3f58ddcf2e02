public import HearthCore

/// The security-rules check a commit carries into the store (``DocumentCommitter/commit(_:in:transaction:judge:receipt:completion:)``).
/// The store runs it inside the commit's transaction, once every write of the commit is worked out (preconditions
/// checked, transforms resolved with the commit time), so no concurrent write can slip between check and commit.
/// Throwing refuses the commit: nothing of it is applied and the error is the commit's answer.
public typealias CommitJudge = @Sendable (CommitProposal) throws(HearthError) -> Void

/// A commit as the rules judge it, inside its transaction: each write with the document as it finds it and as it
/// leaves it, and reads of any other document as it is.
public struct CommitProposal {
    /// One write of the commit.
    public struct Change {
        /// The write.
        public var write: Write
        /// The document as this write finds it (after the commit's earlier writes); `nil` when it does not exist.
        public var before: DocumentSnapshot?
        /// The document as this write leaves it; `nil` when it does not exist afterwards.
        public var after: DocumentSnapshot?

        /// A change.
        public init(write: Write, before: DocumentSnapshot?, after: DocumentSnapshot?) {
            self.write = write
            self.before = before
            self.after = after
        }
    }

    /// The commit's time: every update time and server timestamp of the commit carries it.
    public var commitTime: Timestamp
    /// The writes, in order.
    public var changes: [Change]
    /// Reads a document the commit does not write, in the commit's transaction.
    private let stored: (ResourcePath) throws(HearthError) -> DocumentSnapshot?

    /// A proposal; `stored` reads a document in the commit's transaction (only asked for paths no write names).
    public init(
        commitTime: Timestamp, changes: [Change],
        stored: @escaping (ResourcePath) throws(HearthError) -> DocumentSnapshot?
    ) {
        self.commitTime = commitTime
        self.changes = changes
        self.stored = stored
    }

    /// The document at `path` as it was before the commit (`get()`), read in the commit's transaction.
    public func document(at path: ResourcePath) throws(HearthError) -> DocumentSnapshot? {
        if let change = changes.first(where: { $0.write.path == path }) { return change.before }
        return try stored(path)
    }

    /// The document at `path` as the whole commit leaves it (`getAfter()`).
    public func documentAfter(at path: ResourcePath) throws(HearthError) -> DocumentSnapshot? {
        if let change = changes.last(where: { $0.write.path == path }) { return change.after }
        return try stored(path)
    }
}
