import HearthCore
internal import HearthPostgres
import HearthStore

/// Transaction-scoped advisory locks on tree locations, which order conflicting tree writes of every node without a
/// lock every write shares (issue 22). A write locks each location it replaces exclusively and each of that
/// location's ancestors, up to the namespace's root, shared. So a write waits for a write at the same location, at
/// an ancestor (which replaces the whole subtree, this location included) and at a descendant (which the write
/// replaces), each until that one committed; writes to disjoint subtrees — siblings, cousins — share only shared
/// locks and never wait for each other.
///
/// Everything a write computes from the data as it is before it — `.sv` increments, the `if-match` ETag of a
/// transaction, a priority write's node — lies at or below the locations it locks exclusively, so two writes that
/// read and write the same data are one after the other, and neither's update is lost. The rules' judge may read
/// other paths (`root.child(…)`, a sibling through `data.parent()`): those reads are not locked, and see the data
/// committed when they read it (see docs/postgres-commit-order.md).
///
/// Keys are 32-bit hashes of the location's key (TreeKeyCodec, so the namespace is in it) under the tree's own
/// lock class; all of a write's locks are taken in one statement in ascending key order (PostgresPathLocks), so
/// waiting writes never deadlock. Two locations sharing a hash only wait on each other.
enum PostgresTreePathLocks {
    /// The first key of every tree location lock ("HTre"), apart from the documents' and other advisory locks.
    static let lockClass: Int32 = 0x4854_7265

    /// Takes the write's locks until the transaction ends: first thing in every tree write.
    static func lock(_ write: TreeWrite, in db: PostgresConnection) throws {
        try PostgresPathLocks.lock(modes(write), class: lockClass, in: db)
    }

    /// The write's lock keys, `true` for exclusive: each written location's, and shared each of its ancestors'. A
    /// key both shared and exclusive (an ancestor of one PATCH entry is another's location, or two hashes collide)
    /// is taken exclusively.
    static func modes(_ write: TreeWrite) -> [Int32: Bool] {
        var modes: [Int32: Bool] = [:]
        for location in written(write) {
            var ancestor = TreePath.root
            for segment in location.segments {
                let shared = key(write.namespace, ancestor)
                modes[shared] = modes[shared] ?? false
                ancestor = ancestor.child(segment)
            }
            modes[key(write.namespace, location)] = true
        }
        return modes
    }

    /// The locations a write replaces: its own, or each entry's of a PATCH.
    private static func written(_ write: TreeWrite) -> [TreePath] {
        switch write.operation {
        case .put, .priority: return [write.path]
        case .patch(let entries):
            return entries.isEmpty ? [write.path] : entries.map { write.path.appending($0.path) }
        }
    }

    private static func key(_ namespace: String, _ path: TreePath) -> Int32 {
        PostgresPathLocks.key(TreeKeyCodec.key(namespace, path))
    }
}
