/// A query on the children of one location: an order, optional bounds in that order, and an optional limit.
///
/// The window is what Firebase's clients and REST API compute: sort the children by the order (ties by key), keep
/// those between the bounds, then keep the first or last `limit` of them.
public struct TreeQuery: Sendable, Hashable {
    /// What the children are ordered by.
    public enum Order: Sendable, Hashable {
        /// `"$key"`: keys in Firebase's key order.
        case key
        /// `"$value"`: the children's own values.
        case value
        /// `"$priority"`: the children's priorities.
        case priority
        /// `"a/b"`: the value at a path below each child.
        case child(TreePath)
    }

    /// One end of the range: a value in the query's order and, optionally, a key that breaks ties among children
    /// with that value.
    public struct Bound: Sendable, Hashable {
        /// The value to compare with: for `.key` the key as a string leaf; `nil` is `null`.
        public var value: TreeLeaf?
        /// The tie-breaking key; without one, every child with an equal value is inside an inclusive bound and
        /// outside an exclusive one.
        public var key: String?
        /// `startAt`/`endAt`/`equalTo` include the bound; `startAfter`/`endBefore` exclude it.
        public var inclusive: Bool

        /// A bound.
        public init(value: TreeLeaf?, key: String? = nil, inclusive: Bool = true) {
            self.value = value
            self.key = key
            self.inclusive = inclusive
        }
    }

    /// How many children to keep after the range is applied.
    public enum Limit: Sendable, Hashable {
        /// `limitToFirst`.
        case first(Int)
        /// `limitToLast`.
        case last(Int)
    }

    /// The order.
    public var order: Order
    /// The lower bound.
    public var start: Bound?
    /// The upper bound.
    public var end: Bound?
    /// The limit.
    public var limit: Limit?

    /// A query.
    public init(order: Order, start: Bound? = nil, end: Bound? = nil, limit: Limit? = nil) {
        self.order = order
        self.start = start
        self.end = end
        self.limit = limit
    }

    /// The children of `node` inside the window, in the query's order. A leaf or a missing node has no children.
    public func window(of node: TreeNode?) -> [(key: String, node: TreeNode)] {
        guard let children = node?.children, !children.isEmpty else { return [] }
        var entries = children.map { (key: $0.key, node: $0.value) }
        entries.sort { compare($0.key, $0.node, $1.key, $1.node) < 0 }
        var lower = 0
        var upper = entries.count
        if let start {
            lower = entries.firstIndex { !isBefore(start, $0.key, $0.node) } ?? entries.count
        }
        if let end {
            upper = entries.lastIndex { !isAfter(end, $0.key, $0.node) }.map { $0 + 1 } ?? 0
        }
        guard lower < upper else { return [] }
        var result = entries[lower..<upper]
        switch limit {
        case .first(let count)?: result = result.prefix(count)
        case .last(let count)?: result = result.suffix(count)
        case nil: break
        }
        return Array(result)
    }

    /// The window as a node: the kept children (with the location's priority), or `nil` when none is kept.
    public func filtered(_ node: TreeNode?) -> TreeNode? {
        let entries = window(of: node)
        var children: [String: TreeNode] = [:]
        children.reserveCapacity(entries.count)
        for entry in entries { children[entry.key] = entry.node }
        return TreeNode.children(children, priority: node?.priority)
    }

    /// Compares two children in the query's order, ties broken by key.
    public func compare(_ lhsKey: String, _ lhs: TreeNode, _ rhsKey: String, _ rhs: TreeNode) -> Int {
        let byValue: Int
        switch order {
        case .key: byValue = 0
        case .value: byValue = TreeOrdering.compareValues(lhs, rhs)
        case .priority: byValue = TreeOrdering.comparePriorities(lhs.priority, rhs.priority)
        case .child(let path): byValue = TreeOrdering.compareValues(lhs.node(at: path), rhs.node(at: path))
        }
        return byValue != 0 ? byValue : TreeKey.compare(lhsKey, rhsKey)
    }

    /// Whether a child sorts below the lower bound `bound`.
    private func isBefore(_ bound: Bound, _ key: String, _ node: TreeNode) -> Bool {
        let byValue = compareToBound(key, node, bound)
        if byValue != 0 { return byValue < 0 }
        guard let boundKey = bound.key else { return !bound.inclusive }
        let byKey = TreeKey.compare(key, boundKey)
        return bound.inclusive ? byKey < 0 : byKey <= 0
    }

    /// Whether a child sorts above the upper bound `bound`.
    private func isAfter(_ bound: Bound, _ key: String, _ node: TreeNode) -> Bool {
        let byValue = compareToBound(key, node, bound)
        if byValue != 0 { return byValue > 0 }
        guard let boundKey = bound.key else { return !bound.inclusive }
        let byKey = TreeKey.compare(key, boundKey)
        return bound.inclusive ? byKey > 0 : byKey >= 0
    }

    /// A child's value compared with a bound's value, in the query's order.
    private func compareToBound(_ key: String, _ node: TreeNode, _ bound: Bound) -> Int {
        switch order {
        case .key:
            guard case .string(let boundKey)? = bound.value else { return 1 }
            return TreeKey.compare(key, boundKey)
        case .value:
            return TreeOrdering.compareValues(node, bound.value.map { .leaf($0) })
        case .priority:
            return TreeOrdering.comparePriorities(node.priority, bound.value)
        case .child(let path):
            return TreeOrdering.compareValues(node.node(at: path), bound.value.map { .leaf($0) })
        }
    }
}
