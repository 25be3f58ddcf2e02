import Synchronization

/// A `Mailer` that keeps messages in memory instead of sending them: the development-mode default, and what tests
/// and the console read. Holds the most recent `capacity` messages.
public final class Outbox: Mailer {
    /// A message that was "sent".
    public struct Entry: Sendable, Equatable {
        /// Increases by one per message, from 1.
        public var sequence: Int
        /// The message.
        public var message: MailMessage
    }

    private struct State {
        var entries: [Entry] = []
        var nextSequence = 1
    }

    /// The most messages kept; older ones are dropped first.
    public let capacity: Int
    private let state = Mutex(State())

    /// An empty outbox keeping at most `capacity` messages.
    public init(capacity: Int = 1000) {
        self.capacity = max(1, capacity)
    }

    /// Records `message`.
    public func send(_ message: MailMessage) throws(MailError) {
        try message.validate()
        state.withLock { state in
            state.entries.append(Entry(sequence: state.nextSequence, message: message))
            state.nextSequence += 1
            if state.entries.count > capacity { state.entries.removeFirst(state.entries.count - capacity) }
        }
    }

    /// The kept messages, oldest first.
    public var entries: [Entry] { state.withLock { $0.entries } }

    /// Forgets every kept message.
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }
}
