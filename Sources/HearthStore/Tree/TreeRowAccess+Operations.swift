package import HearthCore

/// The tree's reads and its PUT, on any engine's rows. Every function costs time in proportion to the rows of the
/// subtree it touches plus the depth of the location, never to the tree's size.
extension TreeRowAccess {
    /// The node at `path`, or `nil`.
    package func node(_ namespace: String, _ path: TreePath) throws -> TreeNode? {
        let key = TreeKeyCodec.key(namespace, path)
        var builder = TreeNodeBuilder()
        try forEachRow(from: key, to: TreeKeyCodec.subtreeEnd(key)) { rowKey, leaf in
            builder.add(TreeKeyCodec.segments(of: rowKey, after: key.count), leaf)
        }
        return builder.finish()
    }

    /// The priority of the node at `path` (one row read), or `nil`.
    package func priority(_ namespace: String, _ path: TreePath) throws -> TreeLeaf? {
        try leaf(at: TreeKeyCodec.priority(TreeKeyCodec.key(namespace, path)))
    }

    /// The leaf at `path` or the keys of its children, each child found with one seek past the previous one's
    /// subtree, so a node with few children but many descendants is cheap.
    /// With `limit`, at most that many children, starting after the child `after` (one seek to get past it).
    package func shallow(
        _ namespace: String, _ path: TreePath, after: String? = nil, limit: Int? = nil
    ) throws -> TreeShallow {
        let key = TreeKeyCodec.key(namespace, path)
        if let value = try leaf(at: key) { return .leaf(value) }
        let end = TreeKeyCodec.subtreeEnd(key)
        // Child rows are `key 0x01 name …`; `key 0x01` is below all of them, and a child's subtree end
        // `key 0x01 name 0x02` is below its next sibling (0x02 never occurs in a key), so `>` steps child by child.
        var lower = key + [0x01]
        if let after {
            var afterKey = key
            TreeKeyCodec.append(after, to: &afterKey)
            lower = TreeKeyCodec.subtreeEnd(afterKey)
        }
        var children: [String] = []
        while children.count < (limit ?? .max), let found = try firstKey(above: lower, below: end) {
            let name = found.withUnsafeBytes { TreeKeyCodec.segments(of: $0, after: key.count) }.first ?? ""
            if name != TreeKeyCodec.priorityKey { children.append(name) }
            var childKey = key
            TreeKeyCodec.append(name, to: &childKey)
            lower = TreeKeyCodec.subtreeEnd(childKey)
        }
        return children.isEmpty ? .missing : .children(children)
    }

    /// Replaces the node at `path` with `node` (`nil` deletes), as a PUT does: the old subtree's rows go, ancestors
    /// that were leaves become objects (keeping their priorities), and ancestors left empty by a delete vanish with
    /// their priorities.
    package func put(_ node: TreeNode?, _ namespace: String, at path: TreePath) throws {
        let key = TreeKeyCodec.key(namespace, path)
        try deleteRows(from: key, to: TreeKeyCodec.subtreeEnd(key))
        if let node {
            // Ancestors that were leaves become objects; deleting below a leaf, by contrast, leaves it alone.
            var ancestor = TreeKeyCodec.key(namespace, .root)
            for segment in path.segments {
                try deleteRow(at: ancestor)
                TreeKeyCodec.append(segment, to: &ancestor)
            }
            var buffer = key
            var rows: [(key: [UInt8], leaf: TreeLeaf)] = []
            Self.collect(node, key: &buffer, into: &rows)
            try insertRows(rows)
        } else {
            try pruneEmptyAncestors(namespace, of: path)
        }
    }

    /// The rows of `node` stored at `key`: one per leaf, one per priority.
    private static func collect(_ node: TreeNode, key: inout [UInt8], into rows: inout [(key: [UInt8], leaf: TreeLeaf)])
    {
        switch node.content {
        case .leaf(let leaf):
            rows.append((key, leaf))
        case .children(let children):
            for (name, child) in children {
                let length = key.count
                TreeKeyCodec.append(name, to: &key)
                collect(child, key: &key, into: &rows)
                key.removeSubrange(length...)
            }
        }
        if let priority = node.priority { rows.append((TreeKeyCodec.priority(key), priority)) }
    }

    /// Walks up from the parent of `path`, dropping the priority of each ancestor that no longer exists; stops at the
    /// first one that still does (it has children, or is a leaf).
    private func pruneEmptyAncestors(_ namespace: String, of path: TreePath) throws {
        var ancestor = path
        while !ancestor.isRoot {
            ancestor = ancestor.parent
            let key = TreeKeyCodec.key(namespace, ancestor)
            let priorityKey = TreeKeyCodec.priority(key)
            // Its own row (a leaf) or any child row other than its priority means it still exists.
            if try hasRow(from: key, to: TreeKeyCodec.subtreeEnd(key), excluding: priorityKey) { return }
            try deleteRow(at: priorityKey)
        }
    }
}
