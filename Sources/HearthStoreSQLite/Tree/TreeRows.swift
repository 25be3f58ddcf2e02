import HearthCore
import HearthSQLite
import HearthStore

/// The `tree_nodes` table: one row per leaf and per priority, keyed by `TreeKeyCodec`. Every function costs time in
/// proportion to the rows of the subtree it touches plus the depth of the location, never to the tree's size.
enum TreeRows {
    /// The node at `path`, or `nil`.
    static func node(_ namespace: String, _ path: TreePath, in db: SQLiteConnection) throws -> TreeNode? {
        let key = TreeKeyCodec.key(namespace, path)
        var builder = TreeNodeBuilder()
        try db.forEachRow(
            "SELECT key, value FROM tree_nodes WHERE key >= \(key) AND key < \(TreeKeyCodec.subtreeEnd(key)) ORDER BY key"
        ) { statement in
            let segments = statement.withBlob(at: 0) { TreeKeyCodec.segments(of: $0, after: key.count) }
            if let leaf = leaf(statement.value(at: 1)) { builder.add(segments, leaf) }
        }
        return builder.finish()
    }

    /// The priority of the node at `path` (one row read), or `nil`.
    static func priority(_ namespace: String, _ path: TreePath, in db: SQLiteConnection) throws -> TreeLeaf? {
        let key = TreeKeyCodec.priority(TreeKeyCodec.key(namespace, path))
        return try db.fetchOne("SELECT value FROM tree_nodes WHERE key = \(key)").flatMap { leaf($0[0]) }
    }

    /// The leaf at `path` or the keys of its children, each child found with one seek past the previous one's
    /// subtree, so a node with few children but many descendants is cheap.
    /// With `limit`, at most that many children, starting after the child `after` (one seek to get past it).
    static func shallow(
        _ namespace: String, _ path: TreePath, after: String? = nil, limit: Int? = nil, in db: SQLiteConnection
    ) throws -> TreeShallow {
        let key = TreeKeyCodec.key(namespace, path)
        if let row = try db.fetchOne("SELECT value FROM tree_nodes WHERE key = \(key)"), let value = leaf(row[0]) {
            return .leaf(value)
        }
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
        while children.count < (limit ?? .max),
            let row = try db.fetchOne(
                "SELECT key FROM tree_nodes WHERE key > \(lower) AND key < \(end) ORDER BY key LIMIT 1")
        {
            guard case .blob(let found) = row[0] else { break }
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
    static func put(_ node: TreeNode?, _ namespace: String, at path: TreePath, in db: SQLiteConnection) throws {
        let key = TreeKeyCodec.key(namespace, path)
        try db.execute("DELETE FROM tree_nodes WHERE key >= \(key) AND key < \(TreeKeyCodec.subtreeEnd(key))")
        if let node {
            // Ancestors that were leaves become objects; deleting below a leaf, by contrast, leaves it alone.
            var ancestor = TreeKeyCodec.key(namespace, .root)
            for segment in path.segments {
                try db.execute("DELETE FROM tree_nodes WHERE key = \(ancestor)")
                TreeKeyCodec.append(segment, to: &ancestor)
            }
            var buffer = key
            try insert(node, key: &buffer, in: db)
        } else {
            try pruneEmptyAncestors(namespace, of: path, in: db)
        }
    }

    /// Deletes every row of a namespace.
    static func deleteAll(_ namespace: String, in db: SQLiteConnection) throws {
        let key = TreeKeyCodec.key(namespace, .root)
        try db.execute("DELETE FROM tree_nodes WHERE key >= \(key) AND key < \(TreeKeyCodec.subtreeEnd(key))")
    }

    private static func insert(_ node: TreeNode, key: inout [UInt8], in db: SQLiteConnection) throws {
        switch node.content {
        case .leaf(let leaf):
            try db.execute("INSERT INTO tree_nodes(key, value) VALUES (\(key), \(stored(leaf)))")
        case .children(let children):
            for (name, child) in children {
                let length = key.count
                TreeKeyCodec.append(name, to: &key)
                try insert(child, key: &key, in: db)
                key.removeSubrange(length...)
            }
        }
        if let priority = node.priority {
            try db.execute(
                "INSERT INTO tree_nodes(key, value) VALUES (\(TreeKeyCodec.priority(key)), \(stored(priority)))")
        }
    }

    /// Walks up from the parent of `path`, dropping the priority of each ancestor that no longer exists; stops at the
    /// first one that still does (it has children, or is a leaf).
    private static func pruneEmptyAncestors(_ namespace: String, of path: TreePath, in db: SQLiteConnection) throws {
        var ancestor = path
        while !ancestor.isRoot {
            ancestor = ancestor.parent
            let key = TreeKeyCodec.key(namespace, ancestor)
            let priorityKey = TreeKeyCodec.priority(key)
            // Its own row (a leaf) or any child row other than its priority means it still exists.
            let exists =
                try db.fetchOne(
                    """
                    SELECT 1 FROM tree_nodes WHERE key >= \(key) AND key < \(TreeKeyCodec.subtreeEnd(key))
                    AND key != \(priorityKey) LIMIT 1
                    """) != nil
            if exists { return }
            try db.execute("DELETE FROM tree_nodes WHERE key = \(priorityKey)")
        }
    }

    /// A leaf as stored: integers as INTEGER, doubles as REAL, strings as TEXT, Booleans as a one-byte BLOB.
    static func stored(_ leaf: TreeLeaf) -> SQLiteValue {
        switch leaf {
        case .bool(let value): .blob([value ? 1 : 0])
        case .integer(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        }
    }

    /// The leaf a stored value holds.
    static func leaf(_ value: SQLiteValue) -> TreeLeaf? {
        switch value {
        case .integer(let value): .integer(value)
        case .real(let value): .double(value)
        case .text(let value): .string(value)
        case .blob(let bytes): .bool(bytes.first == 1)
        case .null: nil
        }
    }
}
