/// A primitive value stored at a leaf of the tree, or used as a priority.
public enum TreeLeaf: Sendable, Hashable {
    /// `true` or `false` (never a priority).
    case bool(Bool)
    /// A whole number within `Int64`; kept apart from doubles so counters stay exact.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)

    /// The leaf as JSON.
    public var json: JSONValue {
        switch self {
        case .bool(let value): .bool(value)
        case .integer(let value): .integer(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        }
    }

    /// The leaf for a JSON primitive; `nil` for null, arrays and objects.
    public init?(json: JSONValue) {
        switch json {
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .null, .array, .object: return nil
        }
    }

    /// Whether this is a number.
    public var isNumber: Bool {
        switch self {
        case .integer, .double: true
        default: false
        }
    }
}

/// One node of the tree that exists: a leaf, or a non-empty set of named children, with an optional priority.
///
/// A missing node (JSON `null`) is `TreeNode?.none`: Firebase has no empty objects, so a node whose children all
/// went away does not exist either. Children are a dictionary; ordering is applied where it matters (queries, output).
public struct TreeNode: Sendable, Hashable {
    /// What the node holds.
    public enum Content: Sendable, Hashable {
        /// A primitive value.
        case leaf(TreeLeaf)
        /// Named children; never empty.
        case children([String: TreeNode])
    }

    /// What the node holds.
    public var content: Content
    /// The priority: a number or a string (`.priority` in the export format).
    public var priority: TreeLeaf?

    /// A node with the given content and priority.
    public init(_ content: Content, priority: TreeLeaf? = nil) {
        self.content = content
        self.priority = priority
    }

    /// A leaf node.
    public static func leaf(_ leaf: TreeLeaf, priority: TreeLeaf? = nil) -> TreeNode {
        TreeNode(.leaf(leaf), priority: priority)
    }

    /// A node with children, or `nil` when `children` is empty (an empty object does not exist).
    public static func children(_ children: [String: TreeNode], priority: TreeLeaf? = nil) -> TreeNode? {
        children.isEmpty ? nil : TreeNode(.children(children), priority: priority)
    }

    /// The children; empty for a leaf.
    public var children: [String: TreeNode] {
        if case .children(let children) = content { return children }
        return [:]
    }

    /// The leaf value, when this is a leaf.
    public var leafValue: TreeLeaf? {
        if case .leaf(let leaf) = content { return leaf }
        return nil
    }

    /// The node at `path` below this one (`self` for the root path), or `nil` when nothing is there.
    public func node(at path: TreePath) -> TreeNode? {
        var node = self
        for key in path.segments {
            guard case .children(let children) = node.content, let child = children[key] else { return nil }
            node = child
        }
        return node
    }

    /// `node` with `value` written at `path` below it (a PUT), pruning parents left empty. Writing at the root
    /// replaces the whole node. An ancestor that was a leaf becomes a node with children and keeps its priority;
    /// deleting below a leaf leaves it alone.
    public static func setting(_ value: TreeNode?, at path: TreePath, in node: TreeNode?) -> TreeNode? {
        setting(value, at: path.segments[...], in: node)
    }

    private static func setting(_ value: TreeNode?, at segments: ArraySlice<String>, in node: TreeNode?) -> TreeNode? {
        guard let key = segments.first else { return value }
        // Deleting below a leaf (or below nothing) changes nothing, as in Firebase.
        if value == nil, node == nil || node?.leafValue != nil { return node }
        var children = node?.children ?? [:]
        children[key] = setting(value, at: segments.dropFirst(), in: children[key])
        return TreeNode.children(children, priority: node?.priority)
    }

    /// The number of leaves (priorities not counted).
    public var leafCount: Int {
        switch content {
        case .leaf: 1
        case .children(let children): children.values.reduce(0) { $0 + $1.leafCount }
        }
    }

    /// The deepest level below this node that holds a leaf: 0 for a leaf, 1 for an object of leaves.
    public var depth: Int {
        switch content {
        case .leaf: 0
        case .children(let children): 1 + (children.values.map(\.depth).max() ?? 0)
        }
    }
}
