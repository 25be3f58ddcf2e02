import Dispatch

/// A serial callback queue a test can recognise (by a queue-specific key) and drain, to check that callbacks run on
/// the queue a service was given and never inside the call that raised them.
final class TestQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    init(_ label: String = "hearth.tests.callbacks") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the caller runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Runs `body` on the queue and returns its result: callbacks it queues there run only after it returns.
    func run<T>(_ body: () throws -> T) rethrows -> T { try queue.sync(execute: body) }

    /// Waits until everything queued so far has run.
    func drain() { queue.sync {} }
}
