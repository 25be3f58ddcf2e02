import Foundation
import HearthCore
import Synchronization

/// A database's local state, created on first use: the tree cache and write queue (on disk with
/// ``Database/isPersistenceEnabled``, in memory otherwise), the queued writes in memory, and their sender.
final class TreeLocal: Sendable {
    let cache: TreeCache
    /// The queued writes, oldest first, as stored in `cache` — read on every view, so kept in memory.
    let pending: Mutex<[TreeLocalWrite]>
    let queue: TreeWriteQueue

    init(cache: TreeCache, database: Database) {
        self.cache = cache
        pending = Mutex(cache.queuedWrites())
        queue = TreeWriteQueue(channel: TreeWriteChannel(database: database))
    }
}

extension Database {
    /// The local state, made on first use with the persistence setting of that moment.
    var local: TreeLocal {
        let (local, isNew) = localState.withLock { state -> (TreeLocal, Bool) in
            if let local = state { return (local, false) }
            let url = isPersistenceEnabled ? app.options.storageFile("database", app: app.name) : nil
            let local = TreeLocal(cache: TreeCache(url: url), database: self)
            state = local
            return (local, true)
        }
        // Writes a previous run queued are sent as soon as this database is used again.
        if isNew, local.pending.withLock({ !$0.isEmpty }) {
            let queue = local.queue
            Task { await queue.resume() }
        }
        return local
    }

    /// What the app sees at `path`: `server` (the server's data — a query's window — or `nil` when there is none) or
    /// else the location's cached value, with the queued writes applied and then a query's `window`; `nil` when
    /// nothing is known.
    func view(at path: [String], window: TreeQueryWindow?, server: JSONValue?) -> JSONValue? {
        let local = self.local
        let writes = local.pending.withLock { $0.filter { $0.sets.contains { TreeLocalView.related($0.path, path) } } }
        let base: JSONValue
        if let server {
            base = server
        } else if let cached = local.cache.value(at: path) {
            base = cached
        } else if !writes.isEmpty {
            base = .null
        } else {
            return nil
        }
        let value = TreeLocalView.apply(writes, to: base, at: path)
        return window.map { $0.apply(value) } ?? value
    }

    /// The view as ``ObserverRegistry/Viewer``.
    var viewer: ObserverRegistry.Viewer {
        { [self] path, window, server in view(at: path, window: window, server: server) }
    }

    /// An event of a stream: shown to its observers, and a plain location's data cached. `false` when the stream
    /// has no observers left.
    func received(_ event: String, _ json: JSONValue, on key: String) -> Bool {
        guard let stream = observers.receive(event: event, json: json, on: key, view: viewer) else { return false }
        if !stream.isQuery, let server = stream.server { local.cache.store(server, at: stream.path) }
        return true
    }

    /// Queues a write — durably with persistence — and queues the events of the observers it affects (on the callback
    /// queue, so after this returns) before it is sent; returns
    /// its queue position for ``TreeWriteQueue/wait(for:)``. Synchronous, so writes fired one after another keep
    /// their order.
    /// - Throws: `internal` when the local queue could not store the write; it is then neither shown nor sent.
    func enqueue(_ method: String, path: [String], body: JSONValue) throws(FirestoreErrorCode) -> Int64 {
        let local = self.local
        let millis = Int64(Date().timeIntervalSince1970 * 1000)
        var queued: Result<Int64, FirestoreErrorCode> = .success(0)
        observers.update(view: viewer) {
            local.pending.withLock { pending in
                do throws(FirestoreErrorCode) {
                    let write = try local.cache.enqueue(method: method, path: path, body: body, localMillis: millis)
                    pending.append(write)
                    queued = .success(write.id)
                } catch {
                    queued = .failure(error)
                }
            }
        }
        return try queued.get()
    }

    /// Queues a write and waits for the server's answer (see docs/sdk.md, "When a tree write completes").
    func write(_ method: String, path: [String], body: JSONValue) async throws {
        let id = try enqueue(method, path: path, body: body)
        try await local.queue.wait(for: id)
    }

    /// The server applied `write`: what it wrote goes into the cache and the streams' data, and the write leaves the
    /// queue, in one step for the observers.
    func acknowledged(_ write: TreeLocalWrite, answer: JSONValue, marks: [String: Int]) {
        let local = self.local
        let sets = write.acknowledgedSets(answer: answer)
        for set in sets { local.cache.store(set.value, at: set.path) }
        observers.update(acknowledged: sets, marks: marks, view: viewer) {
            local.pending.withLock { pending in
                pending.removeAll { $0.id == write.id }
                local.cache.dequeue(write.id)
            }
        }
    }

    /// The server refused `write`: it leaves the queue and its effect leaves what observers see.
    func refused(_ write: TreeLocalWrite) {
        let local = self.local
        observers.update(view: viewer) {
            local.pending.withLock { pending in
                pending.removeAll { $0.id == write.id }
                local.cache.dequeue(write.id)
            }
        }
    }
}
