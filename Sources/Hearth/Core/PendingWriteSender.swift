import Foundation
import Synchronization

/// One durable write queue as its sender sees it: where the queued writes are, how one is sent, and what the
/// server's answers do to the local state. The document queue (``WriteQueue``) and the tree queue
/// (``TreeWriteQueue``) each provide one, and share ``PendingWriteSender``'s order, retries and waiting.
protocol PendingWriteChannel: Sendable {
    /// A queued write, as the channel stored it.
    associatedtype Write: Sendable

    /// The oldest write still queued, or `nil` when the queue is empty.
    func oldest() -> Write?
    /// The write's queue position (what its caller waits on).
    func id(of write: Write) -> Int64
    /// Sends `write` and, once the server acknowledged it, applies the answer locally and takes the write off the
    /// queue. Throws the server's refusal, or a failure ``isTransient(_:)`` says to retry.
    func deliver(_ write: Write) async throws
    /// Whether `error` means the server could not be reached (the write stays queued and is sent again), rather
    /// than a refusal.
    func isTransient(_ error: any Error) -> Bool
    /// A send failed transiently; the write stays queued.
    func interrupted() async
    /// The server refused `write`: takes its effect back out of what the app sees and drops it from the queue.
    func refuse(_ write: Write) async
}

/// The one state machine behind both durable write queues: it sends the queued writes oldest first, one at a time;
/// while the server is unreachable it waits and retries with capped exponential backoff (``PendingWriteBackoff``);
/// a refusal drops only the refused write; a write's waiter resumes with its own answer, even when the answer came
/// before anyone waited. Sending stops while offline (``setOnline(_:)``) and for good after ``terminate(failing:)``.
actor PendingWriteSender<Channel: PendingWriteChannel> {
    private let channel: Channel
    private let backoff: PendingWriteBackoff
    private var waiters = WriteWaiters()
    /// Cleared by ``setOnline(_:)`` at once, so no write queued after going offline is sent.
    private let online = Atomic<Bool>(true)
    private var terminated = false
    private var flushing: Task<Void, Never>?

    init(channel: Channel, backoff: PendingWriteBackoff = .standard) {
        self.channel = channel
        self.backoff = backoff
    }

    /// Waits for the server's answer to the queued write `id`, starting the sender if needed.
    /// - Throws: the server's refusal, or the error ``terminate(failing:)`` was given.
    func wait(for id: Int64) async throws {
        if let answer = waiters.takeEarly(id) { return try answer.get() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiters.add(id, continuation)
            startFlushing()
        }
    }

    /// Sends what is queued (writes an earlier run left, or after going online again).
    func resume() { startFlushing() }

    /// `goOffline()`/`goOnline()`: while offline, writes stay queued and nothing is sent (a request already on its
    /// way finishes).
    nonisolated func setOnline(_ online: Bool) {
        self.online.store(online, ordering: .sequentiallyConsistent)
        if online { Task { await self.resume() } }
    }

    /// Stops sending for good: what is queued stays queued (on disk for the next instance), and every waiting
    /// write fails with `error`. The loop ends at its next step: cancelling a request in flight can crash
    /// FoundationNetworking on Linux.
    func terminate(failing error: any Error) {
        terminated = true
        waiters.failAll(error)
    }

    private var mayRun: Bool { !terminated && online.load(ordering: .sequentiallyConsistent) }

    private func startFlushing() {
        guard flushing == nil, mayRun else { return }
        flushing = Task { await self.flush() }
    }

    private func flush() async {
        var failures = 0
        while mayRun, let next = channel.oldest() {
            let id = channel.id(of: next)
            do {
                try await channel.deliver(next)
                waiters.finish(id, with: nil)
                failures = 0
            } catch  where channel.isTransient(error) {
                await channel.interrupted()
                failures += 1
                try? await Task.sleep(for: backoff.delay(afterFailures: failures))
            } catch {
                await channel.refuse(next)
                waiters.finish(id, with: error)
            }
        }
        flushing = nil
    }
}

/// How long the sender waits before resending after consecutive transient failures: doubling from `initial`,
/// never above `maximum`.
struct PendingWriteBackoff: Sendable {
    var initial: Duration
    var maximum: Duration

    /// 100 ms, 200 ms, … up to 2 s: quick to notice a server that is back, gentle on one that is not.
    static let standard = PendingWriteBackoff(initial: .milliseconds(100), maximum: .seconds(2))

    /// The wait after `failures` (≥ 1) transient failures in a row.
    func delay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 20)
        return min(maximum, initial * (1 << doublings))
    }
}
