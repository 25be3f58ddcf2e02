import Synchronization

/// Holds background index builds between their steps until let through, so a test can look at a build half done
/// (its progress, the queries it still refuses) without racing it. A server runs without one: its builds never wait.
public final class IndexBuildGate: Sendable, Equatable {
    private struct State {
        var open = false
        var allowed: Int
        var held: [@Sendable () -> Void] = []
    }

    private let state: Mutex<State>

    /// A gate that lets `steps` steps through, then holds the rest.
    public init(allowing steps: Int = 0) {
        state = Mutex(State(allowed: steps))
    }

    /// The same gate (a configuration holding one compares equal only to one holding the same).
    public static func == (lhs: IndexBuildGate, rhs: IndexBuildGate) -> Bool { lhs === rhs }

    /// Lets `steps` more steps through, held ones first.
    public func allow(_ steps: Int) {
        let released = state.withLock { state in
            state.allowed += steps
            let count = min(state.allowed, state.held.count)
            state.allowed -= count
            defer { state.held.removeFirst(count) }
            return Array(state.held.prefix(count))
        }
        for step in released { step() }
    }

    /// Lets every step through from now on, held ones first.
    public func open() {
        let released = state.withLock { state in
            state.open = true
            defer { state.held = [] }
            return state.held
        }
        for step in released { step() }
    }

    /// Runs `step` now if the gate lets it through, else when ``allow(_:)`` or ``open()`` does.
    public func pass(_ step: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.open { return true }
            if state.allowed > 0 {
                state.allowed -= 1
                return true
            }
            state.held.append(step)
            return false
        }
        if now { step() }
    }
}
