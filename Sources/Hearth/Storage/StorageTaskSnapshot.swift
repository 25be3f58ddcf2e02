public import Foundation

/// What a task observer is told about — Hearth's `StorageTaskStatus`.
public enum StorageTaskStatus: Int, Sendable, Hashable {
    /// Not a status of a running task (never observed).
    case unknown
    /// The task started or resumed.
    case resume
    /// More bytes were transferred.
    case progress
    /// The task was paused.
    case pause
    /// The task finished.
    case success
    /// The task failed or was cancelled.
    case failure
}

/// A task's state when an observer was called — Hearth's `StorageTaskSnapshot`.
public final class StorageTaskSnapshot: Sendable, CustomStringConvertible {
    /// The task.
    public let task: StorageTask
    /// The status the observer was registered for.
    public let status: StorageTaskStatus
    /// The reference the task works on.
    public let reference: StorageReference
    /// The object's metadata, once the server reported it.
    public let metadata: StorageMetadata?
    /// Why the task failed, for `.failure`.
    public let error: (any Error)?
    private let completed: Int64
    private let total: Int64

    init(
        task: StorageTask, status: StorageTaskStatus, completed: Int64, total: Int64, metadata: StorageMetadata?,
        error: StorageError?
    ) {
        self.task = task
        self.status = status
        self.reference = task.reference
        self.completed = completed
        self.total = total
        self.metadata = metadata
        self.error = error
    }

    /// The bytes transferred so far (`completedUnitCount`) of the total (`totalUnitCount`, `-1` while unknown).
    public var progress: Progress? {
        let progress = Progress(totalUnitCount: total)
        progress.completedUnitCount = completed
        return progress
    }

    /// `<State: …>` as Firebase describes snapshots.
    public var description: String {
        switch status {
        case .resume: "<State: Resume>"
        case .progress: "<State: Progress, Progress: \(completed)/\(total)>"
        case .pause: "<State: Paused>"
        case .success: "<State: Success>"
        case .failure: "<State: Failed, Error: \(error.map { "\($0)" } ?? "-")>"
        case .unknown: "<State: Unknown>"
        }
    }
}
