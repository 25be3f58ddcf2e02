import Synchronization

/// The account state every ID-token check needs (disabled, valid-since), kept for at most a second so that a
/// signed-in client's requests do not each read the accounts table.
///
/// Every write through this process's ``AccountDatabase`` empties it at once, so a disable, revocation or delete made
/// here is seen by the very next request; one made by another process on the same data directory (`hearth users
/// disable`) within a second, as the signing-key manifest is. An entry read before a write finished is never kept.
final class TokenStatusCache: Sendable {
    typealias Status = (disabled: Bool, validSince: Int64)

    private struct Entry: Sendable {
        var status: Status?
        var readAt: ContinuousClock.Instant
    }

    private struct State: Sendable {
        var generation: UInt64 = 0
        var entries: [String: Entry] = [:]
    }

    private let state = Mutex(State())
    private let lifetime: Duration
    private let capacity: Int

    init(lifetime: Duration = .seconds(1), capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The status of `uid` (`nil`: no such account), from the cache or from `read`.
    func status(uid: String, read: () throws(AuthError) -> Status?) throws(AuthError) -> Status? {
        let now = ContinuousClock.now
        let (cached, generation) = state.withLock { state in (state.entries[uid], state.generation) }
        if let cached, now - cached.readAt < lifetime { return cached.status }
        let status = try read()
        state.withLock { state in
            // A write since the read began may have changed what it saw.
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[uid] = Entry(status: status, readAt: now)
        }
        return status
    }

    /// Forgets everything (after any write to the accounts).
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }
}
