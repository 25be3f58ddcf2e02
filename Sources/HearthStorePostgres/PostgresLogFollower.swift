import Dispatch
import HearthStore
import Synchronization

/// Feeds one change log of a database that several nodes write to into this node's ``ChangeFeed``: every
/// committed change once, in sequence order, whichever node committed it.
///
/// This node's commits are handed over on the writer queue right after `COMMIT` (``committed(_:)``), so its own
/// changes still reach the feed before the commit's caller hears back; other nodes' commits are found by polling
/// the log on the same queue — at once when a node announces a commit (``PostgresFeedWakeUp``), and every poll
/// interval in case an announcement was lost — so the two never interleave out of order. Today every commit takes the
/// `commit_clock` row lock and hands out its sequences under it, so the sequences visible to any snapshot are a
/// prefix of the log: reading "after the last delivered" can never skip a change that commits later.
final class PostgresLogFollower<Record: Sendable>: Sendable {
    /// How a follower reads its log and where it delivers.
    struct Log: Sendable {
        /// Entries after a sequence, oldest first, at most `limit`.
        var entries: @Sendable (_ after: Int64, _ limit: Int) throws -> [Record]
        /// An entry's sequence.
        var sequence: @Sendable (Record) -> Int64
        /// The feed subscribers read.
        var feed: ChangeFeed<Record>
    }

    private let log: Log
    private let queue: DispatchQueue
    /// The last sequence delivered to the feed; read and written on `queue` only.
    private let delivered: Mutex<Int64>
    private let interval: DispatchTimeInterval
    private let stopped = Mutex(false)
    private let wakeUp: PostgresFeedWakeUp
    private let wakeSubscription = Mutex<ChangeFeed<Bool>.Subscription?>(nil)
    /// Entries read from the log per query while catching up.
    private static var batch: Int { 1000 }

    /// A follower delivering after `head` (the log's head when the node started: earlier changes are history,
    /// served by the log itself), polling every `interval` on `queue` — the engine's writer queue.
    /// Other nodes' commits are looked for when `wakeUp` says one was announced, and at every poll in case an
    /// announcement was missed; this node's are announced through it.
    init(log: Log, head: Int64, queue: DispatchQueue, interval: Duration, wakeUp: PostgresFeedWakeUp) {
        self.log = log
        self.queue = queue
        self.wakeUp = wakeUp
        delivered = Mutex(head)
        let nanoseconds =
            Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        self.interval = .nanoseconds(max(1_000_000, nanoseconds))
        schedulePoll()
        let subscription = wakeUp.woken.subscribe { [weak self] _ in
            guard let self else { return }
            queue.async { [weak self] in self?.catchUp(through: nil) }
        }
        wakeSubscription.withLock { $0 = subscription }
    }

    /// Delivers a commit of this node (its entries, ascending), on the writer queue after `COMMIT`: at once when it
    /// follows the last delivered entry, else after the other nodes' entries committed between, read from the log.
    func committed(_ records: [Record]) {
        guard let first = records.first, let last = records.last else { return }
        // The commit is in the log whatever happens below: the other nodes are told in every case.
        defer { wakeUp.announce() }
        let before = log.sequence(first) - 1
        // Another node's entries committed since the last delivery go first. `catchUp` stops at `before`, so it
        // delivers none of this commit's; when the log could not be read (the database restarting), publishing now
        // would skip the others', so this commit's go out with them at the next poll, in order, instead.
        if delivered.withLock({ $0 }) < before { catchUp(through: before) }
        guard delivered.withLock({ $0 }) == before else { return }
        log.feed.publish(records)
        delivered.withLock { $0 = log.sequence(last) }
    }

    /// Reads and delivers the log's entries after the last delivered — through `bound` when given, else all there
    /// are. A failed read (the database restarting) is retried at the next poll.
    private func catchUp(through bound: Int64?) {
        while true {
            let after = delivered.withLock { $0 }
            if let bound, after >= bound { return }
            let wanted = bound.map { Int(min(Int64(Self.batch), $0 - after)) } ?? Self.batch
            guard let entries = try? log.entries(after, wanted), let last = entries.last else { return }
            log.feed.publish(entries)
            delivered.withLock { $0 = log.sequence(last) }
            if entries.count < wanted { return }
        }
    }

    /// The next poll, on the queue; it holds the follower weakly, so a dropped engine stops polling by itself.
    private func schedulePoll() {
        queue.asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self, !stopped.withLock({ $0 }) else { return }
            catchUp(through: nil)
            schedulePoll()
        }
    }

    /// Stops polling; queued deliveries still run.
    func stop() {
        stopped.withLock { $0 = true }
        wakeSubscription.withLock { $0?.cancel() }
    }

    deinit {
        wakeSubscription.withLock { $0?.cancel() }
    }
}
