import HearthCore
internal import HearthPostgres
import HearthStore

/// Transaction-scoped advisory locks on tree locations, which order conflicting tree writes of every node without a
/// lock every write shares (issue 22). A write locks each location it replaces exclusively and each of that
/// location's ancestors, up to the namespace's root, shared (a PATCH of many entries locks its own location instead,
/// see ``entryLocks``). So a write waits for a write at the same location, at an ancestor (which replaces the whole
/// subtree, this location included) and at a descendant (which the write replaces), each until that one committed;
/// writes to disjoint subtrees — siblings, cousins — share only shared locks and never wait for each other.
///
/// Everything a write computes from the data as it is before it — `.sv` increments, the `if-match` ETag of a
/// transaction, a priority write's node — lies at or below the locations it locks exclusively, so two writes that
/// read and write the same data are one after the other, and neither's update is lost. One thing a write decides
/// from data beside it: a deletion drops the priority of each ancestor it leaves empty, which depends on that
/// ancestor's other children, written by writes that lock it only shared. So a write that deletes below an ancestor
/// holding a priority takes that ancestor exclusively (``lock(_:exclusive:in:)`` tells; the write then starts again
/// with it), and deletions beside each other are one after the other there — otherwise two nodes deleting an
/// object's last two children could each see the other's still there and leave its priority behind, to come back
/// with the next child written. The rules' judge may read other paths (`root.child(…)`, a sibling through
/// `data.parent()`): those reads are not locked, and see the data committed when they read it (see
/// docs/postgres-commit-order.md).
///
enum PostgresTreePathLocks {
    /// The first key of every tree location lock ("HTre"), apart from the documents' and other advisory locks.
    static let lockClass: Int32 = 0x4854_7265

    /// Takes the write's locks until the transaction ends, first thing in every tree write, with the keys of
    /// `exclusive` taken exclusively too. Answers `nil` when they are enough, or else the keys the write must take
    /// exclusively (ancestors of its deletions that hold a priority, read under these locks, which keep any from being
    /// set or dropped meanwhile): the caller then rolls back and starts again with them.
    static func lock(_ write: TreeWrite, exclusive: Set<Int32>, in db: PostgresConnection) throws -> Set<Int32>? {
        var modes = modes(write)
        for key in exclusive { modes[key] = true }
        try PostgresPathLocks.lock(modes, class: lockClass, in: db)
        let needed = try prioritizedAncestors(of: write, in: db)
        return needed.isSubset(of: exclusive) ? nil : exclusive.union(needed)
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

    /// The lock keys of the ancestors of the write's deletions that hold a priority now, in one statement (none
    /// for a write that deletes nothing, the common case, which costs no statement).
    private static func prioritizedAncestors(of write: TreeWrite, in db: PostgresConnection) throws -> Set<Int32> {
        var ancestors: [[UInt8]: TreePath] = [:]
        for location in deleted(write) {
            var ancestor = location
            while !ancestor.isRoot {
                ancestor = ancestor.parent
                ancestors[TreeKeyCodec.priority(TreeKeyCodec.key(write.namespace, ancestor))] = ancestor
            }
        }
        guard !ancestors.isEmpty else { return [] }
        let keys = Array(ancestors.keys)
        var found: Set<Int32> = []
        // A thousand keys a statement, well under libpq's 65,535 parameters however large a PATCH of nulls.
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let batch = keys[start..<min(start + 1000, keys.count)]
            let rows = try db.query(
                "SELECT key FROM tree_nodes WHERE key IN ("
                    + (1...batch.count).map { "$\($0)" }.joined(separator: ", ") + ")",
                batch.map { .binary($0) }, binaryResults: true)
            for row in rows.rows {
                if let ancestor = try row.bytes(0).flatMap({ ancestors[$0] }) {
                    found.insert(key(write.namespace, ancestor))
                }
            }
        }
        return found
    }

    /// The locations a write may delete, whose emptied ancestors lose their priorities: a PUT or PATCH entry of
    /// `null`, and a priority write (which puts back the node it finds, deleting where there is none).
    private static func deleted(_ write: TreeWrite) -> [TreePath] {
        switch write.operation {
        case .put(let value): return value.node == nil && !value.hasServerValues ? [write.path] : []
        case .priority: return [write.path]
        case .patch(let entries):
            return entries.filter { $0.value.node == nil && !$0.value.hasServerValues }.map {
                write.path.appending($0.path)
            }
        }
    }

    /// The most PATCH entries locked one by one; a larger PATCH locks its own location exclusively instead.
    /// PostgreSQL keeps every lock in one shared table, of `max_locks_per_transaction` × `max_connections` slots
    /// (6,400 by default) for all sessions together, and fails a transaction that would pass it ("out of shared
    /// memory"): a fan-out PATCH of thousands of keys must not take a lock per key. Its location covers every entry,
    /// so the write still conflicts with everything it conflicted with, and with writes beside its entries too.
    static let entryLocks = 64

    /// The locations a write locks exclusively: its own, or each entry's of a PATCH of up to ``entryLocks``
    /// entries.
    private static func written(_ write: TreeWrite) -> [TreePath] {
        switch write.operation {
        case .put, .priority: return [write.path]
        case .patch(let entries):
            return entries.isEmpty || entries.count > entryLocks
                ? [write.path] : entries.map { write.path.appending($0.path) }
        }
    }

    private static func key(_ namespace: String, _ path: TreePath) -> Int32 {
        PostgresPathLocks.key(TreeKeyCodec.key(namespace, path))
    }
}
