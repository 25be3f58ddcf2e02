import Dispatch
import Synchronization

/// Where a service delivers its listeners, observers and completions, as Firebase does: the main queue unless the
/// app chose another (`Database.callbackQueue`, `Firestore.settings.dispatchQueue`, `Auth.callbackQueue`).
///
/// Every callback is queued with `async`, never run inside the call that caused it, so an app's code after a write
/// (`removeValue()` then `items.remove(at:)`) runs before the observers hear of the write. Callbacks queued one after
/// another run in that order on a serial queue such as the main queue.
final class CallbackQueue: Sendable {
    private let queue = Mutex<DispatchQueue>(.main)

    /// The queue callbacks go to from now on.
    var current: DispatchQueue {
        get { queue.withLock { $0 } }
        set { queue.withLock { $0 = newValue } }
    }

    /// Queues `work` on the current queue.
    func async(_ work: @escaping @Sendable () -> Void) { current.async(execute: work) }

    /// Returns once everything queued so far has run. An `async` write awaits this after its answer, so it resumes
    /// after the listeners heard of the write, as a completion handler queued behind them would run.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            async { continuation.resume() }
        }
    }

    /// Runs `body` in a task and reports its result to `completion` on this queue.
    func complete<T: Sendable>(
        _ completion: (@Sendable (T?, (any Error)?) -> Void)?, _ body: @escaping @Sendable () async throws -> T
    ) {
        Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            guard let completion else { return }
            self.async {
                switch result {
                case .success(let value): completion(value, nil)
                case .failure(let error): completion(nil, error)
                }
            }
        }
    }

    /// Runs `body` in a task and reports its error, if any, to `completion` on this queue.
    func completeVoid(
        _ completion: (@Sendable ((any Error)?) -> Void)?, _ body: @escaping @Sendable () async throws -> Void
    ) {
        Task {
            var failure: (any Error)?
            do {
                try await body()
            } catch {
                failure = error
            }
            guard let completion else { return }
            let error = failure
            self.async { completion(error) }
        }
    }
}
