import Synchronization

/// The bytes all of a server's event streams may hold for their clients together. Each stream has its own limit,
/// but many streams whose clients stopped reading could still fill memory between them (20 stalled listeners once
/// held 305 MiB); a send that would take the total past this budget cuts its client off as its own limit would.
final class StreamBufferBudget: Sendable {
    /// The most bytes all streams together may hold.
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) { self.limit = max(0, limit) }

    /// Bytes the streams hold now.
    var bytesInUse: Int { used.load(ordering: .relaxed) }

    /// Takes `count` bytes from the budget; `false`, taking nothing, when that would pass the limit.
    func reserve(_ count: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + count <= limit else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + count, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Takes `count` bytes whatever the limit (bytes a stream already held when it was attached).
    func charge(_ count: Int) { used.add(count, ordering: .relaxed) }

    /// Gives back `count` bytes a stream no longer holds.
    func release(_ count: Int) { used.subtract(count, ordering: .relaxed) }
}
