import Foundation
import HearthCore

/// The durable queue every non-transactional write goes through: a commit is stored in SQLite first, then sent in
/// order; while the server is unreachable it waits (retrying with capped backoff) and survives an app restart. A
/// write's `await` resumes when the server acknowledged it — or refused it, which also drops it from the queue.
actor WriteQueue {
    private let client: DocumentsClient
    private let cache: LocalDocumentCache
    private var waiters: [Int64: CheckedContinuation<Void, any Error>] = [:]
    private var flushing: Task<Void, Never>?

    init(client: DocumentsClient, cache: LocalDocumentCache) {
        self.client = client
        self.cache = cache
    }

    /// Queues writes as one atomic commit and waits for the server's answer.
    func submit(_ writes: [Write]) async throws {
        let body = JSONValue.array(writes.map(client.json)).jsonString
        let id = cache.enqueue(body)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiters[id] = continuation
            startFlushing()
        }
    }

    /// Sends what a previous run left queued.
    func resume() { startFlushing() }

    private func startFlushing() {
        guard flushing == nil else { return }
        flushing = Task { await self.flush() }
    }

    private func flush() async {
        var failures = 0
        while let next = cache.pendingCommits().first {
            let writes = (try? JSONParser.parse(next.writes)) ?? .array([])
            do throws(FirestoreErrorCode) {
                _ = try await client.send("POST", path: .root, suffix: ":commit", body: ["writes": writes])
                finish(next.id, with: nil, writes: writes)
                failures = 0
            } catch  where error.code == .unavailable {
                failures += 1
                try? await Task.sleep(for: .milliseconds(min(2_000, 50 << min(failures, 6))))
            } catch {
                finish(next.id, with: error, writes: writes)
            }
        }
        flushing = nil
    }

    private func finish(_ id: Int64, with error: FirestoreErrorCode?, writes: JSONValue) {
        cache.dequeue(id)
        // The server applied transforms we cannot replay exactly, so written documents are re-read when needed.
        for write in writes.arrayValue ?? [] {
            if let name = write["update"]?["name"]?.stringValue ?? write["delete"]?.stringValue,
                let path = try? client.database.path(fromName: name)
            {
                cache.remove(path)
            }
        }
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume() }
    }
}
