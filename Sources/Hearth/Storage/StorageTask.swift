import Foundation
import Synchronization

/// What every upload and download task can do besides being observed — Firebase's `StorageTaskManagement`.
public protocol StorageTaskManagement: Sendable {
    /// Starts the task (the SDK's `put…`, `getData` and `write` calls already did).
    func enqueue()
    /// Pauses the transfer.
    func pause()
    /// Cancels the transfer: observers hear `.failure` with `cancelled`.
    func cancel()
    /// Continues a paused transfer.
    func resume()
}

/// An upload or download — Hearth's `StorageTask`.
///
/// Its mutable state lives in a `Mutex`; the class is open to the SDK's own two subclasses only, which is why its
/// `Sendable` conformance is declared unchecked.
public class StorageTask: @unchecked Sendable {
    /// The reference the task works on.
    public let reference: StorageReference
    let state = Mutex(TaskState())

    init(reference: StorageReference) { self.reference = reference }

    /// The task's state now.
    public var snapshot: StorageTaskSnapshot {
        state.withLock { snapshot(of: $0, status: $0.phase) }
    }

    func snapshot(of state: TaskState, status: StorageTaskStatus) -> StorageTaskSnapshot {
        StorageTaskSnapshot(
            task: self, status: status, completed: state.completed, total: state.total, metadata: state.metadata,
            error: state.error)
    }
}

/// The observable part of a task's state.
struct TaskState: Sendable {
    /// What observers were last told; `.resume` from the start.
    var phase = StorageTaskStatus.resume
    var completed: Int64 = 0
    var total: Int64 = -1
    var metadata: StorageMetadata?
    var error: StorageError?
    /// Observers by status, in the order they were added.
    var observers: [StorageTaskStatus: [(handle: String, call: @Sendable (StorageTaskSnapshot) -> Void)]] = [:]
    var nextHandle = 0
    /// The SDK's own waiters for the end (the `async` forms), called on the transfer's thread.
    var finishers: [@Sendable (StorageTaskSnapshot) -> Void] = []

    var finished: Bool { phase == .success || phase == .failure }
}

/// A task that reports its changes to observers — Hearth's `StorageObservableTask`.
public class StorageObservableTask: StorageTask, @unchecked Sendable {
    /// Calls `handler` on the callback queue each time the task reaches `status`; at once (queued) when it is
    /// already there (`.success` after the task finished, `.progress` while it runs), as Firebase does.
    /// - Parameters:
    ///   - status: `.resume`, `.pause`, `.progress`, `.success` or `.failure`.
    ///   - handler: called with the task's snapshot.
    /// - Returns: a handle for ``removeObserver(withHandle:)``.
    @discardableResult
    public func observe(_ status: StorageTaskStatus, handler: @escaping (StorageTaskSnapshot) -> Void) -> String {
        let call = callbackQueueBound(handler)
        let callbacks = reference.storage.callbacks
        return state.withLock { state in
            state.nextHandle += 1
            let handle = "\(status.rawValue).\(state.nextHandle)"
            state.observers[status, default: []].append((handle, call))
            let now = state.phase
            let matches =
                switch status {
                case .progress: now == .resume || now == .progress
                case .unknown: false
                default: now == status
                }
            if matches {
                let snapshot = snapshot(of: state, status: status)
                callbacks.async { call(snapshot) }
            }
            return handle
        }
    }

    /// Removes one observer.
    /// - Parameter handle: what ``observe(_:handler:)`` returned.
    public func removeObserver(withHandle handle: String) {
        state.withLock { state in
            for status in state.observers.keys { state.observers[status]?.removeAll { $0.handle == handle } }
        }
    }

    /// Removes the observers of one status.
    /// - Parameter status: the status.
    public func removeAllObservers(for status: StorageTaskStatus) {
        state.withLock { $0.observers[status] = nil }
    }

    /// Removes every observer.
    public func removeAllObservers() { state.withLock { $0.observers = [:] } }

    /// Applies `update`, moves to `status` and queues its observers' calls — inside the lock, so calls keep the
    /// order of the changes that raised them. Nothing changes once the task has finished; with `unlessPaused`, a
    /// paused task takes the update but stays paused and tells no one.
    func move(
        to status: StorageTaskStatus, unlessPaused: Bool = false, _ update: (inout TaskState) -> Void = { _ in }
    ) {
        let callbacks = reference.storage.callbacks
        let ended = state.withLock { state -> (StorageTaskSnapshot, [@Sendable (StorageTaskSnapshot) -> Void])? in
            guard !state.finished else { return nil }
            update(&state)
            if unlessPaused && state.phase == .pause { return nil }
            state.phase = status
            let snapshot = snapshot(of: state, status: status)
            for observer in state.observers[status] ?? [] {
                let call = observer.call
                callbacks.async { call(snapshot) }
            }
            guard state.finished else { return nil }
            state.observers = [:]
            defer { state.finishers = [] }
            return (snapshot, state.finishers)
        }
        if let (snapshot, finishers) = ended {
            for finisher in finishers { finisher(snapshot) }
        }
    }

    /// Calls `body` once the task has finished (at once when it has), on whichever thread finished it.
    func whenFinished(_ body: @escaping @Sendable (StorageTaskSnapshot) -> Void) {
        let done = state.withLock { state -> StorageTaskSnapshot? in
            guard state.finished else {
                state.finishers.append(body)
                return nil
            }
            return snapshot(of: state, status: state.phase)
        }
        if let done { body(done) }
    }

    /// Registers the completion of the call that made the task, before anything else can observe it.
    func complete(_ completion: @escaping @Sendable (StorageTaskSnapshot) -> Void) {
        state.withLock { state in
            state.observers[.success, default: []].append(("completion", completion))
            state.observers[.failure, default: []].append(("completion", completion))
        }
    }

    /// Records progress and tells `.progress` observers, unless the task is paused (judged under the same lock as
    /// the move, so a pause in between is never overwritten).
    func progressed(completed: Int64, total: Int64) {
        move(to: .progress, unlessPaused: true) { state in
            state.completed = completed
            state.total = total
        }
    }

    /// Ends the task with `error`.
    func fail(_ error: StorageError) { move(to: .failure) { $0.error = error } }

    /// The error a cancelled task ends with.
    var cancelledError: StorageError { reference.error(.cancelled, "User cancelled the upload/download.") }
}
