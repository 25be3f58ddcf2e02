public import HearthCore

/// The committed document changes of an engine, in commit order: as they happen (what the listen hub subscribes to)
/// and from the log (what it catches up from, and what resume tokens point into).
public protocol DocumentChangeLog: Sendable {
    /// Committed document changes as they happen, in commit order.
    var changeFeed: ChangeFeed<ChangeRecord> { get }

    /// Change-log entries after a sequence number, oldest first.
    func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord]

    /// The log's head: the last sequence number handed to a committed change (0 before the first), even if its entry
    /// has been pruned since. A listener that starts here has seen nothing yet and misses nothing after.
    func head() throws(HearthError) -> Int64

    /// Whether the log still holds every entry after `sequence` (none pruned), so a listener resuming there misses
    /// nothing. An engine whose numbers may have gaps answers from what it pruned, not from the entries.
    func covers(after sequence: Int64) throws(HearthError) -> Bool

    /// The log's head and the time a listener starting there reads at: every commit with an earlier or equal time is
    /// at or before the head. `nil` time when the log cannot tell (empty, or the head's entry pruned); the caller's
    /// clock stands in then.
    func headAndTime() throws(HearthError) -> (sequence: Int64, time: Timestamp?)
}

extension DocumentChangeLog {
    /// For a log whose head is always a committed entry (numbers without gaps): the head's commit time.
    public func headAndTime() throws(HearthError) -> (sequence: Int64, time: Timestamp?) {
        try ChangeLogHead.timed(head: head(), changes: changes(after:limit:))
    }

    /// For a log whose numbers have no gaps: covered when the entry right after `sequence` is still there (or no
    /// entry follows it yet).
    public func covers(after sequence: Int64) throws(HearthError) -> Bool {
        guard let first = try changes(after: sequence, limit: 1).first else { return true }
        return first.sequence == sequence + 1
    }
}

/// The read time at a change log's head, for logs whose head is always a committed entry.
public enum ChangeLogHead {
    /// `head` with its entry's commit time, read through `changes`; `nil` time for an empty log or a pruned entry.
    public static func timed(
        head: Int64, changes: (Int64, Int) throws(HearthError) -> [ChangeRecord]
    ) throws(HearthError) -> (sequence: Int64, time: Timestamp?) {
        guard head > 0, let entry = try changes(head - 1, 1).first, entry.sequence == head else { return (head, nil) }
        return (head, entry.commitTime)
    }
}
