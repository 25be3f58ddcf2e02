import Foundation
import HearthCore

/// The durable queue every non-transactional write goes through: a commit is stored in SQLite first, shown to the
/// listeners, then sent in order by the shared ``PendingWriteSender``; while the server is unreachable it waits
/// (retrying with capped backoff) and survives an app restart. A write's `await` resumes when the server
/// acknowledged it — or refused it, which also drops it from the queue and takes its effect back out of the
/// listeners' snapshots.
actor WriteQueue {
    private let client: DocumentsClient
    private let cache: LocalDocumentCache
    private let listeners: ListenConnection
    private let sender: PendingWriteSender<DocumentCommitChannel>

    init(client: DocumentsClient, cache: LocalDocumentCache, listeners: ListenConnection) {
        self.client = client
        self.cache = cache
        self.listeners = listeners
        sender = PendingWriteSender(channel: DocumentCommitChannel(client: client, cache: cache, listeners: listeners))
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

    /// Raises the listeners (which see every queued commit) and waits for the server's answer to commit `id`.
    func wait(for id: Int64) async throws {
        await listeners.localWritesChanged()
        try await sender.wait(for: id)
    }

    /// Sends what a previous run left queued.
    func resume() async { await sender.resume() }

    /// Stops sending (``Firestore/terminate()``): what is queued stays on disk for the next instance, and waiting
    /// writes fail with `unavailable`.
    func terminate() async {
        await sender.terminate(
            failing: FirestoreErrorCode(
                .unavailable,
                "The Firestore instance was terminated; the write stays queued and is sent when the app uses Firestore again."
            ))
    }
}

/// The document queue's side of ``PendingWriteSender``: commits stored in the local cache, sent to `:commit` with
/// their idempotency key, and the listen connection told what is in flight and how it ended.
struct DocumentCommitChannel: PendingWriteChannel {
    let client: DocumentsClient
    let cache: LocalDocumentCache
    let listeners: ListenConnection

    typealias Write = (id: Int64, writes: String, localTime: HearthCore.Timestamp, writeID: String?)

    func oldest() -> Write? { cache.pendingCommits().first }

    func id(of write: Write) -> Int64 { write.id }

    func deliver(_ next: Write) async throws {
        let writes = try parsed(next)
        let paths = writtenPaths(writes)
        await listeners.sending(Set(paths))
        // The key makes a resend of a commit whose answer was lost (applied, then the connection broke) return the
        // first answer instead of applying it twice.
        let response = try await client.send(
            "POST", path: .root, suffix: ":commit", body: ["writes": writes],
            headers: next.writeID.map { ["X-Hearth-Write-Id": $0] } ?? [:])
        let commitTime = response["commitTime"]?.stringValue.flatMap(HearthCore.Timestamp.init(rfc3339:))
        let latest = commitTime ?? HearthCore.Timestamp(seconds: .max, nanos: 0)
        for path in paths { cache.remove(path, olderThan: latest) }
        let cache = self.cache
        await listeners.acknowledged(
            LocalCommit(writes: cache.decodeWrites(next.writes), localTime: next.localTime, commitTime: commitTime)
        ) { cache.dequeue(next.id) }
    }

    func isTransient(_ error: any Error) -> Bool { (error as? FirestoreErrorCode)?.isTransient == true }

    func interrupted() async { await listeners.sendEnded() }

    func refuse(_ next: Write) async {
        for path in writtenPaths((try? parsed(next)) ?? .array([])) { cache.remove(path) }
        let cache = self.cache
        await listeners.sendEnded { cache.dequeue(next.id) }
    }

    /// The stored commit's writes. A commit the local store cannot read back is refused rather than sent empty.
    private func parsed(_ next: Write) throws(FirestoreErrorCode) -> JSONValue {
        guard let writes = try? JSONParser.parse(next.writes), writes.arrayValue != nil else {
            throw FirestoreErrorCode(.internal, "A queued commit could not be read back from the local store.")
        }
        return writes
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
