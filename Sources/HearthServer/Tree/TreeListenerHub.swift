import HearthLog
import Foundation
import HearthCore
import HearthHTTP
import HearthStore
import Synchronization

/// Delivers committed tree changes to open streams, in commit order, each change once.
///
/// Everything runs on one serial queue: the feed's publications (handed off by the writer thread at once), stream
/// openings (whose snapshot is read there, so no change falls between snapshot and feed) and keep-alive ticks. A
/// change reaches only the listeners at, above or below the paths it wrote (`TreeListenerIndex`); listeners at the
/// same location in the same format share one encoded frame.
final class TreeListenerHub: Sendable {
    private struct State: Sendable {
        var nextID = 0
        var listeners: [Int: TreeListener] = [:]
        var index = TreeListenerIndex()
    }

    private let tree: any TreeStore
    private let access: TreeAccess
    private let queue = DispatchQueue(label: "hearth.tree.listeners", qos: .userInitiated)
    private let state = Mutex(State())
    /// Read without the lock by the writer thread, so a server with no streams pays nothing per write.
    private let listenerCount = Atomic<Int>(0)
    private let subscription = Mutex<ChangeFeed<TreeChange>.Subscription?>(nil)
    private let ticker = Mutex<Task<Void, Never>?>(nil)
    private let logger: Logger

    /// A hub fed by `tree`'s change feed, sending a keep-alive to every stream each `keepAlive` seconds.
    init(tree: any TreeStore, access: TreeAccess, keepAlive: Double, logger: Logger) {
        self.tree = tree
        self.access = access
        self.logger = logger
        let feed = tree.treeFeed
        let token = feed.subscribe { [weak self] changes in
            guard let self, self.listenerCount.load(ordering: .sequentiallyConsistent) > 0 else { return }
            self.queue.async { self.deliver(changes) }
        }
        subscription.withLock { $0 = token }
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(keepAlive))
                guard let self else { return }
                self.queue.async { self.tick() }
            }
        }
        ticker.withLock { $0 = task }
    }

    deinit { stop() }

    /// Stops deliveries and keep-alives.
    func stop() {
        subscription.withLock { $0?.cancel() }
        ticker.withLock { $0?.cancel() }
    }

    /// The number of open streams.
    var count: Int { listenerCount.load(ordering: .sequentiallyConsistent) }

    /// Starts a stream: registers it, then (on the hub's queue) reads the location and sends the first `put`.
    func open(
        namespace: String, location: TreePath, query: TreeQuery?, format: TreeFormat, auth: AuthContext?,
        credentialStillValid: (@Sendable () -> Bool)?, stream: HTTPEventStream
    ) {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let listener = TreeListener(
            id: id, namespace: namespace, location: location, query: query, format: format, auth: auth,
            credentialStillValid: credentialStillValid, stream: stream)
        stream.onClose { [weak self] in
            guard let self else { return }
            self.queue.async { self.remove(id) }
        }
        // Counted before the snapshot is read, so the feed hands over every change committed from then on; a
        // change the snapshot already holds is skipped by its sequence number.
        listenerCount.add(1, ordering: .sequentiallyConsistent)
        queue.async { [self] in start(listener) }
    }

    private func start(_ listener: TreeListener) {
        var listener = listener
        guard !listener.stream.isClosed else {
            listenerCount.subtract(1, ordering: .sequentiallyConsistent)
            return
        }
        let snapshot: TreeSnapshot
        do {
            snapshot = try tree.read(listener.namespace, at: listener.location, auth: listener.auth)
        } catch {
            logger.log(.error, "tree stream snapshot failed", ["error": .string(error.message)])
            listenerCount.subtract(1, ordering: .sequentiallyConsistent)
            listener.stream.close()
            return
        }
        let first = listener.start(with: snapshot).frame(listener.format)
        guard first.count <= listener.stream.maxBufferedBytes else {
            // The first `put` alone would pass the stream's buffer and cut the client off with nothing said. End
            // it the way a client acts on — `cancel`, as when a read is no longer allowed — with the reason in an
            // SSE comment (clients skip it; a person with curl reads it) and in the log.
            let limit = listener.stream.maxBufferedBytes
            // Logs never carry paths: the sizes say enough.
            logger.log(
                .warning, "tree stream refused: the location is larger than a stream carries",
                ["bytes": .int(first.count), "limit": .int(limit)])
            listener.stream.send(
                ": the data at \(listener.location) is \(first.count) bytes, more than one stream carries (\(limit)); stream a smaller location or a query with a limit\n"
            )
            listener.stream.send(TreeEvent.cancel.frame())
            listener.stream.close()
            listenerCount.subtract(1, ordering: .sequentiallyConsistent)
            return
        }
        state.withLock { state in
            state.listeners[listener.id] = listener
            state.index.insert(listener.id, namespace: listener.namespace, at: listener.location)
        }
        if !listener.stream.send(first) { remove(listener.id) }
    }

    private func remove(_ id: Int) {
        let removed = state.withLock { state -> Bool in
            guard let listener = state.listeners.removeValue(forKey: id) else { return false }
            state.index.remove(id, namespace: listener.namespace, at: listener.location)
            return true
        }
        if removed { listenerCount.subtract(1, ordering: .sequentiallyConsistent) }
    }

    /// Sends each change to the listeners it touches. Each of them is judged first — its token may have expired, the
    /// rules may no longer let it read (they can depend on data this very change wrote) — and one that fails gets
    /// `auth_revoked` or `cancel` instead of the change, and is closed. Judging happens outside the lock: rules can
    /// read the tree.
    private func deliver(_ changes: [TreeChange]) {
        var closed: [Int] = []
        for change in changes {
            let touched = state.withLock { state -> [TreeListener] in
                var ids = Set<Int>()
                for update in change.updates {
                    ids.formUnion(
                        state.index.listeners(namespace: change.namespace, touching: change.path.appending(update.path))
                    )
                }
                return ids.compactMap { state.listeners[$0] }
            }
            var refused: Set<Int> = []
            for listener in touched {
                guard let event = refusal(of: listener) else { continue }
                listener.stream.send(event.frame())
                listener.stream.close()
                refused.insert(listener.id)
                closed.append(listener.id)
            }
            var frames: [FrameKey: [UInt8]] = [:]
            let sends = state.withLock { state -> [(HTTPEventStream, [UInt8], Int)] in
                var sends: [(HTTPEventStream, [UInt8], Int)] = []
                for id in touched.map(\.id) where !refused.contains(id) {
                    guard var listener = state.listeners[id] else { continue }
                    let event = listener.event(for: change)
                    state.listeners[id] = listener
                    guard let event else { continue }
                    // Query listeners' events depend on their windows; others only on location and format.
                    let key = FrameKey(
                        location: listener.location, format: listener.format, listener: listener.query == nil ? nil : id
                    )
                    let frame = frames[key] ?? event.frame(listener.format)
                    frames[key] = frame
                    sends.append((listener.stream, frame, id))
                }
                return sends
            }
            for (stream, frame, id) in sends where !stream.send(frame) { closed.append(id) }
        }
        for id in closed { remove(id) }
    }

    /// Why `listener` may no longer receive data: `auth_revoked` once its ID token has expired or its credential no
    /// longer verifies (revoked, account disabled or deleted), `cancel` once the
    /// rules refuse it a read of its location (a failed read of the rules' data counts as a refusal); `nil` while it
    /// may.
    private func refusal(of listener: TreeListener) -> TreeEvent? {
        if let expiry = listener.expiresAt, TreeAccess.nowMillis() >= expiry * 1000 { return .authRevoked }
        if let check = listener.credentialStillValid, !check() { return .authRevoked }
        do {
            return try access.canRead(listener.namespace, listener.location, listener.auth, query: listener.query)
                ? nil : .cancel
        } catch {
            logger.log(.error, "tree stream access check failed", ["error": .string(error.message)])
            return .cancel
        }
    }

    /// Keep-alives, and the periodic re-check of each stream's access and credential (revocation, disabled
    /// accounts).
    private func tick() {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners {
            let event = refusal(of: listener) ?? .keepAlive
            let sent = listener.stream.send(event.frame())
            if event != .keepAlive { listener.stream.close() }
            if !sent || event != .keepAlive { remove(listener.id) }
        }
    }

    private struct FrameKey: Hashable {
        var location: TreePath
        var format: TreeFormat
        var listener: Int?
    }
}

extension TreeListenerHub {
    /// Re-judges every stream now (after the rules changed); streams that may no longer read get `cancel`.
    func recheckAccess() {
        queue.async { [self] in
            let listeners = state.withLock { Array($0.listeners.values) }
            for listener in listeners {
                guard let event = refusal(of: listener) else { continue }
                listener.stream.send(event.frame())
                listener.stream.close()
                remove(listener.id)
            }
        }
    }
}
