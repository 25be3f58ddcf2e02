import Dispatch
import Synchronization

/// Runs a node's document commits, up to `width` at once, in the order they came (issue 22).
///
/// A PostgreSQL commit spends most of its time waiting: for round trips and for its WAL flush. One at a time, a node
/// cannot use PostgreSQL's group commit (one flush for the commits that wait together), so it stayed under what a
/// single raw client does. Side by side, commits of one node overlap like those of several nodes; those that touch
/// the same documents still wait for each other on their locks, in PostgreSQL, and are numbered in commit order
/// (``PostgresCommitOrder``). A caller that needs its commits applied in order (a Write stream) waits for each
/// answer before sending the next, as Firestore's clients do.
final class CommitLanes: Sendable {
    private struct State {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
        var next = 0
    }

    private let width: Int
    private let state = Mutex(State())
    private let queue: DispatchQueue
    /// Entered for every job queued, left when it ran: ``drain()`` waits on it.
    private let pending = DispatchGroup()

    /// Lanes running up to `width` (at least 1) jobs at once.
    init(label: String, width: Int) {
        self.width = max(1, width)
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    /// Runs `job` once fewer than `width` jobs run; jobs start in the order they were queued.
    func async(_ job: @escaping @Sendable () -> Void) {
        pending.enter()
        let start = state.withLock { state -> Bool in
            guard state.running < width else {
                state.waiting.append(job)
                return false
            }
            state.running += 1
            return true
        }
        if start { queue.async { self.run(job) } }
    }

    /// Runs `job`, then the jobs waiting, one after another on this lane, until none waits.
    private func run(_ first: @escaping @Sendable () -> Void) {
        var job = first
        while true {
            job()
            pending.leave()
            let next = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.next < state.waiting.count else {
                    state.waiting.removeAll()
                    state.next = 0
                    state.running -= 1
                    return nil
                }
                let job = state.waiting[state.next]
                state.next += 1
                // A queue that never empties under load must not keep every job it ran.
                if state.next >= 64, state.next * 2 >= state.waiting.count {
                    state.waiting.removeFirst(state.next)
                    state.next = 0
                }
                return job
            }
            guard let next else { return }
            job = next
        }
    }

    /// Waits until every job queued so far has run.
    func drain() {
        pending.wait()
    }
}
