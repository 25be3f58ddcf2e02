import Dispatch
import HearthCore
import HearthHTTP
import Synchronization

/// Runs blocking request work off the HTTP threads, on a fixed number of serial queues taken in turn.
///
/// libmicrohttpd binds each connection to one of its few threads; a handler that runs for seconds there (a
/// 100,000-name `batchGet`, a query over a million documents, an argon2id hash) stalls every connection that
/// thread serves, and a fresh `GET /healthz` waits behind it. Work put here runs beside the HTTP threads, which go
/// on accepting and parsing. A pool of `count` queues also bounds how much of that work runs at once: accounts
/// have their own pool so at most `count` password hashes — each holding ~19 MiB — run together.
///
/// Work beyond `maximumPending` is refused at once with the caller's overload response instead of queueing
/// without bound.
final class WorkerPool: Sendable {
    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    let maximumPending: Int

    init(label: String, count: Int, maximumPending: Int = 512) {
        queues = (0..<max(1, count)).map { DispatchQueue(label: "hearth.\(label).worker.\($0)") }
        self.maximumPending = maximumPending
    }

    /// A deferred reply that runs `work` on a worker, or answers `overloaded` when too much work is waiting.
    func reply(overloaded: HTTPResponse, _ work: @escaping @Sendable () -> HTTPResponse) -> HTTPReply {
        reply(overloaded: overloaded) { () -> HTTPReply in .response(work()) }
    }

    /// A deferred reply that works out `work`'s own reply on a worker: a response is answered from there, a
    /// deferred one is started there (its answer comes when it comes). A stream cannot be carried over a deferred
    /// reply; handlers that may stream are not given to a pool.
    func reply(overloaded: HTTPResponse, _ work: @escaping @Sendable () -> HTTPReply) -> HTTPReply {
        .deferred { [self] respond in
            let waiting = pending.wrappingAdd(1, ordering: .relaxed).newValue
            guard waiting <= maximumPending else {
                pending.wrappingSubtract(1, ordering: .relaxed)
                respond(overloaded)
                return
            }
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            queues[(index % queues.count + queues.count) % queues.count].async { [self] in
                let reply = work()
                pending.wrappingSubtract(1, ordering: .relaxed)
                switch reply {
                case .response(let response): respond(response)
                case .deferred(let start): start(respond)
                case .stream:
                    respond(
                        Responses.error(
                            HearthError(.internal, "A handler on a worker answered with a stream.")))
                }
            }
        }
    }

    /// Runs `work` on a worker and returns its result to an async caller (the gRPC methods), which waits without
    /// holding a thread of Swift's cooperative pool through a blocking read.
    /// - Throws: `UNAVAILABLE` when too much work is waiting (clients retry it with backoff), else `work`'s error.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws(HearthError) -> T) async throws(HearthError) -> T {
        let result: Result<T, HearthError> = await withCheckedContinuation { continuation in
            let waiting = pending.wrappingAdd(1, ordering: .relaxed).newValue
            guard waiting <= maximumPending else {
                pending.wrappingSubtract(1, ordering: .relaxed)
                continuation.resume(
                    returning: .failure(HearthError(.unavailable, "The server is busy; retry shortly.")))
                return
            }
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            queues[(index % queues.count + queues.count) % queues.count].async { [self] in
                let result = Result { () throws(HearthError) -> T in try work() }
                pending.wrappingSubtract(1, ordering: .relaxed)
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }
}
