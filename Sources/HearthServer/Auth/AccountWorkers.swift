import Dispatch
import HearthHTTP
import Synchronization

/// Runs blocking accounts work (argon2id, SQLite, RSA signing) off the HTTP threads, on a fixed number of serial
/// queues taken in turn, so at most `count` password hashes — each holding ~19 MiB — run at once.
///
/// Work beyond `maximumPending` is refused at once with the caller's overload response instead of queueing
/// without bound.
final class AccountWorkers: Sendable {
    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    let maximumPending: Int

    init(count: Int, maximumPending: Int = 512) {
        queues = (0..<max(1, count)).map { DispatchQueue(label: "hearth.accounts.worker.\($0)") }
        self.maximumPending = maximumPending
    }

    /// A deferred reply that runs `work` on a worker, or answers `overloaded` when too much work is waiting.
    func reply(overloaded: HTTPResponse, _ work: @escaping @Sendable () -> HTTPResponse) -> HTTPReply {
        .deferred { [self] respond in
            let waiting = pending.wrappingAdd(1, ordering: .relaxed).newValue
            guard waiting <= maximumPending else {
                pending.wrappingSubtract(1, ordering: .relaxed)
                respond(overloaded)
                return
            }
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            queues[(index % queues.count + queues.count) % queues.count].async { [self] in
                let response = work()
                pending.wrappingSubtract(1, ordering: .relaxed)
                respond(response)
            }
        }
    }
}
