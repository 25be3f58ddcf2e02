import Foundation
import HearthCore

/// The durable queue every non-transactional write goes through: a commit is stored in SQLite first, shown to the
/// listeners, then sent in order; while the server is unreachable it waits (retrying with capped backoff) and
/// survives an app restart. A write's `await` resumes when the server acknowledged it — or refused it, which also
/// drops it from the queue and takes its effect back out of the listeners' snapshots.
actor WriteQueue {
    private let client: DocumentsClient
    private let cache: LocalDocumentCache
    private let listeners: ListenConnection
    private var waiters = WriteWaiters()
    private var terminated = false
    private var flushing: Task<Void, Never>?

    init(client: DocumentsClient, cache: LocalDocumentCache, listeners: ListenConnection) {
        self.client = client
        self.cache = cache
        self.listeners = listeners
    }

    /// Queues writes as one atomic commit, raises the listeners it affects, and waits for the server's answer.
    func submit(_ writes: [Write]) async throws { try await wait(for: try enqueue(writes)) }

    /// Stores writes as one commit in the durable queue, synchronously, so writes fired one after another without
    /// waiting (completion forms) keep their order; returns the commit's ID for ``wait(for:)``.
    /// - Throws: `internal` when the local store refused it; nothing is queued then.
    nonisolated func enqueue(_ writes: [Write]) throws(FirestoreErrorCode) -> Int64 {
        let body = JSONValue.array(writes.map(client.json)).jsonString
        return try cache.enqueue(body, localTime: Timestamp(date: Date()).core.truncatedToMicroseconds)
    }

    /// Raises the listeners (which see every queued commit) and waits for the server's answer to commit `id`. A
    /// flush already running may answer before this waits; `waiters` keeps that answer.
    func wait(for id: Int64) async throws {
        await listeners.localWritesChanged()
        if let answer = waiters.takeEarly(id) { return try answer.get() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiters.add(id, continuation)
            startFlushing()
        }
    }

    /// Sends what a previous run left queued.
    func resume() { startFlushing() }

    private func startFlushing() {
        guard flushing == nil, !terminated else { return }
        flushing = Task { await self.flush() }
    }

    /// Stops sending (``Firestore/terminate()``): what is queued stays on disk for the next instance, and waiting
    /// writes fail with `unavailable`.
    func terminate() {
        // The loop ends at its next step; cancelling a request in flight can crash FoundationNetworking on Linux.
        terminated = true
        waiters.failAll(
            FirestoreErrorCode(
                .unavailable,
                "The Firestore instance was terminated; the write stays queued and is sent when the app uses Firestore again."
            ))
    }

    private func flush() async {
        var failures = 0
        while !terminated, let next = cache.pendingCommits().first {
            let writes = (try? JSONParser.parse(next.writes)) ?? .array([])
            await listeners.sending(Set(writtenPaths(writes)))
            do throws(FirestoreErrorCode) {
                // The key makes a resend of a commit whose answer was lost (applied, then the connection broke)
                // return the first answer instead of applying it twice.
                let response = try await client.send(
                    "POST", path: .root, suffix: ":commit", body: ["writes": writes],
                    headers: next.writeID.map { ["X-Hearth-Write-Id": $0] } ?? [:])
                let commitTime = response["commitTime"]?.stringValue.flatMap(HearthCore.Timestamp.init(rfc3339:))
                let latest = commitTime ?? HearthCore.Timestamp(seconds: .max, nanos: 0)
                for path in writtenPaths(writes) { cache.remove(path, olderThan: latest) }
                let cache = self.cache
                await listeners.acknowledged(
                    LocalCommit(
                        writes: cache.decodeWrites(next.writes), localTime: next.localTime, commitTime: commitTime)
                ) { cache.dequeue(next.id) }
                waiters.finish(next.id, with: nil)
                failures = 0
            } catch  where error.code == .unavailable {
                await listeners.sendEnded()
                failures += 1
                try? await Task.sleep(for: .milliseconds(min(2_000, 50 << min(failures, 6))))
            } catch {
                for path in writtenPaths(writes) { cache.remove(path) }
                let cache = self.cache
                await listeners.sendEnded { cache.dequeue(next.id) }
                waiters.finish(next.id, with: error)
            }
        }
        flushing = nil
    }

    /// The documents a queued commit writes. The server applied transforms the client cannot replay exactly, so
    /// cached copies older than the commit are dropped and read again when needed.
    private func writtenPaths(_ writes: JSONValue) -> [ResourcePath] {
        (writes.arrayValue ?? []).compactMap { write in
            (write["update"]?["name"]?.stringValue ?? write["delete"]?.stringValue).flatMap {
                try? client.database.path(fromName: $0)
            }
        }
    }
}
