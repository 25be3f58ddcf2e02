import Dispatch
import HearthStore
import Synchronization

/// Feeds one change log of a database that several nodes write to into this node's ``ChangeFeed``: every
/// committed change once, in sequence order, whichever node committed it.
///
/// The follower only ever delivers up to the log's *final point* (``Log/finalPoint``): the sequence at or below which
/// every change that will ever commit has committed. For both logs, the documents' and the tree's, that point comes
/// from ``PostgresCommitOrder/finalPoint(of:in:)``, since commits take their numbers without a shared lock and can
/// commit out of number order; the follower waits for it rather than read past a number whose commit is still on its
/// way, so it never skips one that commits late, and a number below the point that is not in the log is a gap for
/// good (a rolled-back commit's).
///
/// Every delivery runs on the follower's own queue, so waiting for the final point never holds up this node's next
/// commit: after one of this node's commits (``committed(through:then:)``, which answers the commit's caller only
/// then, so a commit reaches the feed before its caller hears back — in the same order as on every other node, after
/// any other node's changes numbered before it), when a node announces a commit (``PostgresFeedWakeUp``), and
/// every poll interval in case an announcement was lost. Each entry goes out once, in sequence order.
final class PostgresLogFollower<Record: Sendable>: Sendable {
    /// How a follower reads its log and where it delivers.
    struct Log: Sendable {
        /// Entries after a sequence and at most `through`, oldest first, at most `limit`.
        var entries: @Sendable (_ after: Int64, _ through: Int64, _ limit: Int) throws -> [Record]
        /// The sequence at or below which the log is final (see the type's comment).
        var finalPoint: @Sendable () throws -> Int64
        /// An entry's sequence.
        var sequence: @Sendable (Record) -> Int64
        /// The feed subscribers read.
        var feed: ChangeFeed<Record>
    }

    private let log: Log
    /// Delivers one at a time.
    private let queue = DispatchQueue(label: "hearth.postgres.feed-follower")
    /// The final point delivered through (every entry at or below it went out); read and written on `queue` only.
    private let delivered: Mutex<Int64>
    private let interval: DispatchTimeInterval
    private let stopped = Mutex(false)
    private let wakeUp: PostgresFeedWakeUp
    private let wakeSubscription = Mutex<ChangeFeed<Bool>.Subscription?>(nil)
    /// Entries read from the log per query while catching up.
    private static var batch: Int { 1000 }

    /// A follower delivering after `head` (the log's head when the node started: earlier changes are history,
    /// served by the log itself), polling every `interval`.
    /// Other nodes' commits are looked for when `wakeUp` says one was announced, and at every poll in case an
    /// announcement was missed; this node's are announced through it.
    init(log: Log, head: Int64, interval: Duration, wakeUp: PostgresFeedWakeUp) {
        self.log = log
        self.wakeUp = wakeUp
        delivered = Mutex(head)
        self.interval = .nanoseconds(max(1_000_000, interval.wholeNanoseconds))
        schedulePoll()
        let subscription = wakeUp.woken.subscribe { [weak self] _ in
            guard let self else { return }
            self.queue.async { [weak self] in self?.catchUp() }
        }
        wakeSubscription.withLock { $0 = subscription }
    }

    /// Delivers a commit of this node, whose last entry is `last` (`nil`: it changed nothing), after `COMMIT`: with
    /// every entry of any node up to it, in sequence order; then runs `then` (which answers the commit's caller).
    /// When the log could not be read (the database restarting), its entries go out at the next poll instead, still
    /// in order.
    func committed(through last: Int64?, then: @escaping @Sendable () -> Void) {
        guard let last else { return then() }
        // The commit is in the log whatever happens below: the other nodes are told in every case.
        wakeUp.announce()
        queue.async { [self] in
            if delivered.withLock({ $0 }) < last { catchUp() }
            then()
        }
    }

    /// Delivers the log's entries after the last delivered and up to its final point, which it waits for. A failed
    /// read (the database restarting) is retried at the next poll.
    private func catchUp() {
        guard let final = try? log.finalPoint() else { return }
        while true {
            let after = delivered.withLock { $0 }
            if after >= final { return }
            guard let entries = try? log.entries(after, final, Self.batch) else { return }
            if !entries.isEmpty { log.feed.publish(entries) }
            let reached = entries.count < Self.batch ? final : entries.last.map(log.sequence) ?? final
            delivered.withLock { $0 = reached }
        }
    }

    /// The next poll, on the queue; it holds the follower weakly, so a dropped engine stops polling by itself.
    private func schedulePoll() {
        queue.asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self, !stopped.withLock({ $0 }) else { return }
            catchUp()
            schedulePoll()
        }
    }

    /// Waits for the deliveries queued so far.
    func drain() {
        queue.sync {}
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
