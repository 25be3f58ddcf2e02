package import HearthCore

/// Rebuilds a node from its rows, which arrive in key order (depth-first, each node's own row before its
/// descendants), keeping one open frame per level so each row costs O(depth) and no dictionary is copied.
package struct TreeNodeBuilder {
    private struct Frame {
        var key: String
        var children: [String: TreeNode] = [:]
        var priority: TreeLeaf?
    }

    /// Open frames; `frames[0]` is the location itself, `frames[i]` the node at the first `i` relative segments.
    private var frames = [Frame(key: "")]
    /// The location's own value when it is a leaf.
    private var rootLeaf: TreeLeaf?

    /// An empty builder.
    package init() {}

    /// Adds one row: `segments` relative to the location, ending in `.priority` for a priority row.
    package mutating func add(_ segments: [String], _ leaf: TreeLeaf) {
        let isPriority = segments.last == TreeKeyCodec.priorityKey
        let node = isPriority ? Array(segments.dropLast()) : segments
        if node.isEmpty && !isPriority {
            rootLeaf = leaf
            return
        }
        if isPriority {
            if node.isEmpty {
                frames[0].priority = leaf
                return
            }
            // A leaf's priority row follows the leaf's own row, which already sits in its parent's frame.
            let parentDepth = commonDepth(node.dropLast())
            if parentDepth == node.count - 1, commonDepth(node[...]) < node.count,
                case .leaf? = frames[parentDepth].children[node[node.count - 1]]?.content
            {
                close(keeping: parentDepth)
                frames[parentDepth].children[node[node.count - 1]]?.priority = leaf
                return
            }
            open(node)
            frames[frames.count - 1].priority = leaf
            return
        }
        open(node.dropLast())
        frames[frames.count - 1].children[node[node.count - 1]] = .leaf(leaf)
    }

    /// The node, once every row has been added.
    package mutating func finish() -> TreeNode? {
        close(keeping: 0)
        if let rootLeaf { return .leaf(rootLeaf, priority: frames[0].priority) }
        return TreeNode.children(frames[0].children, priority: frames[0].priority)
    }

    /// How many of the open frames (below the root) lie on `segments`.
    private func commonDepth(_ segments: ArraySlice<String>) -> Int {
        var depth = 0
        while depth < segments.count, depth + 1 < frames.count,
            frames[depth + 1].key == segments[segments.startIndex + depth]
        {
            depth += 1
        }
        return depth
    }

    /// Makes the open frames exactly the path `segments`.
    private mutating func open(_ segments: some Collection<String>) {
        let path = Array(segments)
        close(keeping: commonDepth(path[...]))
        for key in path[(frames.count - 1)...] { frames.append(Frame(key: key)) }
    }

    /// Closes frames until only `depth` frames below the root stay open, attaching each to its parent.
    private mutating func close(keeping depth: Int) {
        while frames.count - 1 > depth {
            let frame = frames.removeLast()
            if let node = TreeNode.children(frame.children, priority: frame.priority) {
                frames[frames.count - 1].children[frame.key] = node
            }
        }
    }
}
