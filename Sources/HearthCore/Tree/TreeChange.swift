/// One committed write to the tree, as the change log keeps it and listeners receive it: where it applied, whether
/// it replaced (PUT) or merged (PATCH), and the values written with server values already filled in.
public struct TreeChange: Sendable, Hashable {
    /// How the write applied.
    public enum Kind: String, Sendable, Hashable {
        /// Replaced the node at ``TreeChange/path`` (PUT, POST, DELETE).
        case put
        /// Replaced the nodes at each update's path below ``TreeChange/path`` (PATCH, multi-path).
        case patch
    }

    /// One replaced node.
    public struct Update: Sendable, Hashable {
        /// Where, relative to the change's path (the root path for a PUT).
        public var path: TreePath
        /// The new node; `nil` deleted it.
        public var node: TreeNode?

        /// An update.
        public init(path: TreePath, node: TreeNode?) {
            self.path = path
            self.node = node
        }
    }

    /// The change log's sequence number: increases with commit order.
    public var sequence: Int64
    /// The commit time, microseconds since the epoch (shared with document commits, so the two logs interleave).
    public var commitTime: Int64
    /// The database (namespace) written.
    public var namespace: String
    /// PUT or PATCH.
    public var kind: Kind
    /// The location written.
    public var path: TreePath
    /// The nodes replaced: one at the root path for a PUT; one per key for a PATCH, never overlapping.
    public var updates: [Update]

    /// A change.
    public init(sequence: Int64, commitTime: Int64, namespace: String, kind: Kind, path: TreePath, updates: [Update]) {
        self.sequence = sequence
        self.commitTime = commitTime
        self.namespace = namespace
        self.kind = kind
        self.path = path
        self.updates = updates
    }

    /// Whether the change can alter what is at `location`: it wrote at, above or below it.
    public func touches(_ location: TreePath) -> Bool {
        updates.contains { update in
            let absolute = path.appending(update.path)
            return absolute.contains(location) || location.contains(absolute)
        }
    }

    /// The event a listener at `location` (without a query) receives for this change, with its path relative to the
    /// location; `nil` when the change does not concern it.
    ///
    /// A write at or above the location is a `put` of the location's new value at `/`. Writes below it keep their
    /// shape: a PUT is a `put` at its relative path, a PATCH one `patch` whose keys are the written paths relative to
    /// the patched location (or to the listened location, when the patch was above it).
    public func event(at location: TreePath) -> TreeEvent? {
        var below: [Update] = []
        for update in updates {
            let absolute = path.appending(update.path)
            if let inside = absolute.relative(location) {
                return .put(path: .root, node: update.node?.node(at: inside))
            }
            if location.contains(absolute) { below.append(Update(path: absolute, node: update.node)) }
        }
        guard !below.isEmpty else { return nil }
        switch kind {
        case .put:
            return .put(path: location.relative(below[0].path)!, node: below[0].node)
        case .patch:
            let base = location.contains(path) ? path : location
            return .patch(
                path: location.relative(base)!,
                updates: below.map { Update(path: base.relative($0.path)!, node: $0.node) })
        }
    }
}

extension TreeChange {
    /// `node`, the value at `location` before this change, with the change applied: how a listener that keeps a
    /// location's data in memory (a streamed query) follows it without reading the store again.
    public func applied(to node: TreeNode?, at location: TreePath) -> TreeNode? {
        var result = node
        for update in updates {
            let absolute = path.appending(update.path)
            if let inside = absolute.relative(location) {
                result = update.node?.node(at: inside)
            } else if let below = location.relative(absolute) {
                result = TreeNode.setting(update.node, at: below, in: result)
            }
        }
        return result
    }
}
