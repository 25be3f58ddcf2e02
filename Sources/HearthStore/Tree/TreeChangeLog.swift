public import HearthCore

/// The committed tree changes of an engine, in commit order: as they happen (what the tree's listener hub
/// subscribes to) and from the log (what it catches up from) — the tree's twin of ``DocumentChangeLog``. The hub
/// reads only this and ``TreeReader``, never writes, so a second node can serve tree listeners from a shared log.
public protocol TreeChangeLog: Sendable {
    /// Committed tree changes as they happen, in commit order, each once.
    var treeFeed: ChangeFeed<TreeChange> { get }

    /// Change-log entries after a sequence number, oldest first, at most `limit`.
    func treeChanges(after sequence: Int64, limit: Int) throws(HearthError) -> [TreeChange]

    /// The log's head: the last sequence number handed to a committed tree change (0 before the first), even if its
    /// entry has been pruned since.
    func treeHead() throws(HearthError) -> Int64
}
