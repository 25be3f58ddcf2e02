import Synchronization

/// Collects what a listener callback reports and lets a test await the next item that matches — by suspending until
/// the callback reports, never by polling or sleeping. A suite using it carries a `.timeLimit` so a missing event
/// fails the test instead of hanging it.
final class Events<T: Sendable>: Sendable {
    private struct State {
        var items: [T] = []
        /// How many items `next(where:)` has consumed.
        var cursor = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Called from the listener.
    func add(_ item: T) {
        let waiter = state.withLock { state in
            state.items.append(item)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Everything reported so far.
    var all: [T] { state.withLock { $0.items } }

    /// Waits for the next item (after those consumed by earlier calls) that satisfies `predicate`, consuming the
    /// ones before it. One caller at a time.
    func next(where predicate: (T) -> Bool = { _ in true }) async -> T {
        while true {
            while let item = state.withLock({ state -> T? in
                guard state.cursor < state.items.count else { return nil }
                state.cursor += 1
                return state.items[state.cursor - 1]
            }) {
                if predicate(item) { return item }
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.cursor < state.items.count { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
