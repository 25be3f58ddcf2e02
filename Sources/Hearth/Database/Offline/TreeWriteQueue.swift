import Foundation
import HearthCore
import Synchronization

/// Sends a database's queued tree writes, oldest first, one at a time, each with its idempotency key
/// (`X-Hearth-Write-Id`), so a write resent after its answer was lost is applied once. While the server is
/// unreachable it waits, retrying with capped backoff. A write's `await` resumes when the server acknowledged it —
/// or refused it, which also drops it from the queue and takes its effect back out of what observers see.
actor TreeWriteQueue {
    /// The database whose queue this is (it owns this queue for as long as the app lives).
    private let database: Database
    private var waiters = WriteWaiters()
    /// Cleared by `goOffline()` at once, so no write queued after it is sent.
    private let online = Atomic<Bool>(true)
    private var flushing: Task<Void, Never>?

    init(database: Database) { self.database = database }

    /// Waits for the server's answer to the queued write `id`, starting the sender if needed.
    func wait(for id: Int64) async throws {
        if let answer = waiters.takeEarly(id) { return try answer.get() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiters.add(id, continuation)
            startFlushing()
        }
    }

    /// Sends what is queued (writes an earlier run left, or after ``setOnline(_:)``).
    func resume() { startFlushing() }

    /// `goOffline()`/`goOnline()`: while offline, writes stay queued and nothing is sent (a request already on its
    /// way finishes).
    nonisolated func setOnline(_ online: Bool) {
        self.online.store(online, ordering: .sequentiallyConsistent)
        if online { Task { await self.resume() } }
    }

    private func startFlushing() {
        guard flushing == nil, online.load(ordering: .sequentiallyConsistent) else { return }
        flushing = Task { await self.flush() }
    }

    private func flush() async {
        var failures = 0
        while online.load(ordering: .sequentiallyConsistent), let next = database.local.pending.withLock({ $0.first }) {
            let marks = database.observers.marks()
            do {
                let (answer, _) = try await database.send(
                    next.method, path: next.path, body: next.method == "DELETE" ? nil : next.body,
                    headers: ["X-Hearth-Write-Id": next.writeID])
                database.acknowledged(next, answer: answer, marks: marks)
                waiters.finish(next.id, with: nil)
                failures = 0
            } catch let error as DatabaseError where error.code == .unavailable {
                failures += 1
                try? await Task.sleep(for: .milliseconds(min(2_000, 50 << min(failures, 6))))
            } catch {
                database.refused(next)
                waiters.finish(next.id, with: error)
            }
        }
        flushing = nil
    }
}
