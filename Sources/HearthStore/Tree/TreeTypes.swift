public import HearthCore

/// A node read at one moment.
public struct TreeSnapshot: Sendable, Equatable {
    /// The node; `nil` when nothing is there.
    public var node: TreeNode?
    /// The last change-log sequence the read reflects: it holds every change at or below it.
    public var sequence: Int64
    /// Changes numbered above ``sequence`` that the read holds too, in an engine whose numbers may commit out of order
    /// (PostgreSQL: a number taken later can commit first). A stream starting from the read skips them, so each change
    /// reaches it exactly once. Empty where numbers commit in order (SQLite).
    public var alsoHeld: Set<Int64>

    /// A snapshot.
    public init(node: TreeNode?, sequence: Int64, alsoHeld: Set<Int64> = []) {
        self.node = node
        self.sequence = sequence
        self.alsoHeld = alsoHeld
    }
}

/// The result of a shallow read.
public enum TreeShallow: Sendable, Equatable {
    /// Nothing is there.
    case missing
    /// The location holds a leaf.
    case leaf(TreeLeaf)
    /// The location has these children (keys only).
    case children([String])
}

/// One write to the tree.
public struct TreeWrite: Sendable {
    /// What to do at ``path``.
    public enum Operation: Sendable {
        /// Replace the node (PUT, POST to a new child, DELETE as `nil`).
        case put(TreeWriteValue)
        /// Replace several nodes below the location at once (PATCH); paths are relative and never overlap.
        case patch([(path: TreePath, value: TreeWriteValue)])
        /// Set the priority of the node at the location (`PUT /path/.priority.json`); nothing happens where no node
        /// exists, since a missing node has no priority.
        case priority(TreeLeaf?)
    }

    /// The namespace (database).
    public var namespace: String
    /// The location written.
    public var path: TreePath
    /// The operation.
    public var operation: Operation
    /// `if-match`: apply only if the location's current ETag is this one.
    public var ifMatch: String?
    /// Who writes (for rules); `nil` for an unauthenticated caller.
    public var auth: AuthContext?
    /// The security-rules check, run inside the write's transaction once server values are resolved: it sees the
    /// data exactly as the write would change it, so no concurrent write can slip between check and commit. `false`
    /// refuses the write (``TreeWriteOutcome/denied``) with nothing applied; `nil` means no check.
    public var judge: (@Sendable (TreeWriteProposal) throws -> Bool)?
    /// The client's idempotency key, recorded with the answer in the write's transaction when it commits; a key
    /// already recorded fails the write with `UNAVAILABLE` and applies nothing.
    public var receipt: WriteReceipt<TreeChange>?

    /// A write.
    public init(
        namespace: String, path: TreePath, operation: Operation, ifMatch: String? = nil, auth: AuthContext? = nil,
        judge: (@Sendable (TreeWriteProposal) throws -> Bool)? = nil
    ) {
        self.namespace = namespace
        self.path = path
        self.operation = operation
        self.ifMatch = ifMatch
        self.auth = auth
        self.judge = judge
    }
}

/// A write as the rules judge it, inside its transaction: where it goes, what it would put there (server values
/// filled in), and a way to read the data as it is before it.
public struct TreeWriteProposal {
    /// The namespace.
    public var namespace: String
    /// The location written.
    public var path: TreePath
    /// The nodes the write puts at paths relative to ``path`` (`nil` deletes); one at `/` for PUT, POST, DELETE and
    /// priority writes, one per key for a multi-path PATCH.
    public var updates: [TreeChange.Update]
    /// The commit time in milliseconds since 1970: the rules' `now`, equal to what `{".sv":"timestamp"}` wrote.
    public var nowMillis: Int64
    /// The node at an absolute path as it is before the write, read in the write's transaction.
    public var current: (TreePath) throws -> TreeNode?
    /// The priority of the node at an absolute path before the write, read in the write's transaction.
    public var currentPriority: (TreePath) throws -> TreeLeaf?

    /// A proposal.
    public init(
        namespace: String, path: TreePath, updates: [TreeChange.Update], nowMillis: Int64,
        current: @escaping (TreePath) throws -> TreeNode?, currentPriority: @escaping (TreePath) throws -> TreeLeaf?
    ) {
        self.namespace = namespace
        self.path = path
        self.updates = updates
        self.nowMillis = nowMillis
        self.current = current
        self.currentPriority = currentPriority
    }
}

/// What a write did.
public enum TreeWriteOutcome: Sendable, Equatable {
    /// The write committed; the change as logged and published (server values filled in).
    case committed(TreeChange)
    /// `if-match` did not match: nothing was written; the location's current node and ETag.
    case preconditionFailed(current: TreeNode?, etag: String)
    /// The write's ``TreeWrite/judge`` refused it: nothing was written.
    case denied
}
