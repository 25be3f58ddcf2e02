import HearthCore

/// Listener IDs by namespace and location, as a trie of path segments, so a change finds the listeners above,
/// at and below each path it wrote by walking that path — never by visiting every listener.
struct TreeListenerIndex: Sendable {
    private struct Node: Sendable {
        var ids: Set<Int> = []
        var children: [String: Node] = [:]
        var isEmpty: Bool { ids.isEmpty && children.isEmpty }
    }

    private var roots: [String: Node] = [:]

    /// Adds a listener.
    mutating func insert(_ id: Int, namespace: String, at path: TreePath) {
        Self.insert(id, path.segments[...], into: &roots[namespace, default: Node()])
    }

    /// Removes a listener.
    mutating func remove(_ id: Int, namespace: String, at path: TreePath) {
        guard var root = roots[namespace] else { return }
        Self.remove(id, path.segments[...], from: &root)
        roots[namespace] = root.isEmpty ? nil : root
    }

    /// The listeners at, above or below `path`.
    func listeners(namespace: String, touching path: TreePath) -> Set<Int> {
        guard var node = roots[namespace] else { return [] }
        var found = node.ids
        for segment in path.segments {
            guard let child = node.children[segment] else { return found }
            node = child
            found.formUnion(node.ids)
        }
        Self.collect(node, into: &found)
        return found
    }

    private static func insert(_ id: Int, _ segments: ArraySlice<String>, into node: inout Node) {
        guard let first = segments.first else {
            node.ids.insert(id)
            return
        }
        insert(id, segments.dropFirst(), into: &node.children[first, default: Node()])
    }

    private static func remove(_ id: Int, _ segments: ArraySlice<String>, from node: inout Node) {
        guard let first = segments.first else {
            node.ids.remove(id)
            return
        }
        guard var child = node.children[first] else { return }
        remove(id, segments.dropFirst(), from: &child)
        node.children[first] = child.isEmpty ? nil : child
    }

    private static func collect(_ node: Node, into found: inout Set<Int>) {
        for child in node.children.values {
            found.formUnion(child.ids)
            collect(child, into: &found)
        }
    }
}
