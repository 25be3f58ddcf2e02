import Synchronization

/// Committed changes, pushed to subscribers in commit order, once each, after the commit is durable.
///
/// The writer publishes each group commit's records after `COMMIT`; a rolled-back write is never published.
/// Subscribers are called on the writer's publishing thread and must only hand the records off (enqueue,
/// wake a stream): the next commit waits for them. A subscriber that falls behind catches up from the change
/// log (`DocumentStore.changes(after:limit:)`) using the sequence numbers.
public final class ChangeFeed<Record: Sendable>: Sendable {
    /// Stops a subscription when cancelled.
    public final class Subscription: Sendable {
        private let cancelAction: @Sendable () -> Void
        init(_ cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }
        /// Stops deliveries; idempotent.
        public func cancel() { cancelAction() }
    }

    private struct State {
        var next = 0
        var subscribers: [Int: @Sendable ([Record]) -> Void] = [:]
    }

    private let state = Mutex(State())

    /// Creates a feed with no subscribers.
    public init() {}

    /// Delivers every later publication to `handler`.
    public func subscribe(_ handler: @escaping @Sendable ([Record]) -> Void) -> Subscription {
        let id = state.withLock { state -> Int in
            state.next += 1
            state.subscribers[state.next] = handler
            return state.next
        }
        return Subscription { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
    }

    /// Hands records to every subscriber, in the caller's (commit) order.
    public func publish(_ records: [Record]) {
        guard !records.isEmpty else { return }
        let handlers = state.withLock { Array($0.subscribers.values) }
        for handler in handlers { handler(records) }
    }

    /// How many subscribers there are.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
