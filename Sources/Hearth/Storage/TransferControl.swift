import Synchronization

/// Pause, resume and cancel for one transfer: the flags the transfer loop checks between requests, the task that
/// runs it, and the request in flight, which pausing or cancelling a download stops.
final class TransferControl: Sendable {
    private struct State {
        var started = false
        var paused = false
        /// How many times the transfer was paused, so a request that ended early can tell it was stopped by a pause
        /// even when ``resume()`` came before it noticed.
        var pauses = 0
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
        var runner: Task<Void, Never>?
        var attempt: Task<Void, any Error>?
    }

    private let state = Mutex(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }
    var isPaused: Bool { state.withLock { $0.paused } }
    var pauses: Int { state.withLock { $0.pauses } }

    /// Runs `body` in a task, once.
    func start(_ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard !state.started else { return }
            state.started = true
            state.runner = Task { await body() }
        }
    }

    /// Marks the transfer paused and stops the request in flight when `stopAttempt`; `false` when it was already
    /// paused, cancelled or never started.
    func pause(stopAttempt: Bool) -> Bool {
        state.withLock { state in
            guard state.started, !state.paused, !state.cancelled else { return false }
            state.paused = true
            state.pauses += 1
            if stopAttempt { state.attempt?.cancel() }
            return true
        }
    }

    /// Lets a paused transfer go on; `false` when it was not paused.
    func resume() -> Bool {
        let (wasPaused, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.paused, !state.cancelled else { return (false, nil) }
            state.paused = false
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return wasPaused
    }

    /// Cancels the transfer and whatever request it has in flight; `false` when already cancelled.
    func cancel() -> Bool {
        let (changed, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.cancelled else { return (false, nil) }
            state.cancelled = true
            state.attempt?.cancel()
            state.runner?.cancel()
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return changed
    }

    /// Waits while the transfer is paused; returns whether it had to wait.
    func waitWhilePaused() async -> Bool {
        var waited = false
        while isPaused && !isCancelled {
            waited = true
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let go = state.withLock { state in
                    if !state.paused || state.cancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if go { continuation.resume() }
            }
        }
        return waited
    }

    /// Runs one request as a task of its own, which `pause(stopAttempt: true)` and `cancel()` stop.
    func attempt(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await body() }
        state.withLock { $0.attempt = task }
        if isCancelled { task.cancel() }
        defer { state.withLock { $0.attempt = nil } }
        try await task.value
    }
}
