public import HearthCore

/// The reads of a tree engine: snapshots of a location with the change-log position they reflect, shallow reads,
/// and priorities (rules' `getPriority()`). Every read names the caller (`auth`) so that rules, once enforced in the
/// engine, are checked in one place.
public protocol TreeReader: Sendable {
    /// The node at a location with the change-log sequence its snapshot reflects, so a listener can drop feed
    /// changes the snapshot already contains.
    func read(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeSnapshot

    /// A shallow read: the leaf at a location, or the keys of its children in the engine's key order — with
    /// `limit`, at most that many, starting after the child `after` (a page; the console's way through a node with
    /// very many children).
    func shallow(
        _ namespace: String, at path: TreePath, after: String?, limit: Int?, auth: AuthContext?
    ) throws(HearthError) -> TreeShallow

    /// The priority of the node at a location, without reading the node.
    func priority(_ namespace: String, at path: TreePath) throws(HearthError) -> TreeLeaf?
}

extension TreeReader {
    /// A shallow read of every child (Firebase's `shallow=true`).
    public func shallow(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeShallow {
        try shallow(namespace, at: path, after: nil, limit: nil, auth: auth)
    }
}
