import HearthCore
import HearthStore

/// The tree hub's state and logic, without threads: open streams by location (``TreeListenerIndex``), the
/// change-log position every stream has reached, and the put/patch events each change becomes at each location.
/// ``TreeListenHub`` owns one and calls it from its runner's thread; tests drive one directly with a fake store and
/// fake sinks.
///
/// A change reaches only the streams at, above or below the paths it wrote; each of them is judged first (its token
/// may have expired, the rules may no longer let it read), and streams at the same location in the same format share
/// one encoded frame. Changes at or before ``sequence`` are skipped, so the feed and a change-log catch-up may
/// overlap; each stream also skips what its first read already held.
final class TreeHubCore {
    /// What the core needs from outside.
    struct Environment {
        /// The store's snapshots and change log.
        let source: any TreeListenSource
        let configuration: TreeListenConfiguration
        let authorizer: any TreeListenAuthorizer
        /// The wall clock in milliseconds since 1970, against which ID tokens expire.
        let nowMillis: () -> Int64
        /// Told of failures, for the log.
        let report: (TreeListenProblem) -> Void
        /// Called once for every stream handed to ``open(_:_:sink:)`` when the hub lets go of it (it never started,
        /// or it was removed).
        let listenerEnded: (Int) -> Void
    }

    let environment: Environment
    /// Every stream reflects every change up to here.
    private(set) var sequence: Int64 = 0
    private(set) var listeners: [Int: TreeListener] = [:]
    private var index = TreeListenerIndex()
    private(set) var statistics = TreeListenStatistics()

    init(environment: Environment) {
        self.environment = environment
    }

    // MARK: Streams

    /// Starts a stream: reads its location and sends the first `put` of everything it sees. A first `put` larger
    /// than the sink carries is refused with `cancel` (the sink says why); a failed read closes the stream.
    func open(_ id: Int, _ request: TreeListenRequest, sink: any TreeListenSink) {
        guard !sink.isClosed else { return ended(id) }
        var listener = TreeListener(id: id, request: request, sink: sink)
        let outcome = start(&listener)
        guard outcome != .refused else { return ended(id) }
        // With no stream open the feed is not followed (TreeListenHub's gate), so the position may be stale; the
        // first stream's read is then where following starts.
        if listeners.isEmpty { sequence = max(sequence, listener.sequence) }
        listeners[id] = listener
        index.insert(id, namespace: listener.namespace, at: listener.location)
        if outcome == .gone { cutOff(id) }
        refreshGauges()
    }

    /// How sending a stream its location went.
    private enum Start {
        /// The `put` is queued.
        case sent
        /// The stream was ended: its location could not be read, or is larger than it carries.
        case refused
        /// The client is gone or full.
        case gone
    }

    /// Reads `listener`'s location and sends a `put` at `/` of everything it sees, from which point it follows the
    /// feed (it skips changes its read already held).
    private func start(_ listener: inout TreeListener) -> Start {
        let request = listener.request
        let sink = listener.sink
        let snapshot: TreeSnapshot
        do {
            snapshot = try environment.source.read(request.namespace, at: request.location, auth: request.auth)
        } catch {
            environment.report(.snapshotFailed(error))
            sink.close()
            return .refused
        }
        let first = listener.start(with: snapshot)
        let frame = first.frame(listener.format)
        guard frame.count <= sink.capacity else {
            // The `put` alone would pass the stream's buffer and cut the client off with nothing said. End it the
            // way a client acts on — `cancel`, as when a read is no longer allowed — with the reason told.
            sink.refuseOversized(location: request.location, bytes: frame.count, capacity: sink.capacity)
            _ = sink.send(.cancel, frame: TreeEvent.cancel.frame())
            sink.close()
            statistics.streamsRefused += 1
            return .refused
        }
        statistics.eventsSent += 1
        return sink.send(first, frame: frame) ? .sent : .gone
    }

    /// Forgets a stream whose client went away. Unknown IDs are ignored.
    func close(_ id: Int) {
        remove(id)
    }

    /// Ends every stream (the server is stopping).
    func stop() {
        for id in listeners.keys.sorted() {
            listeners[id]?.sink.close()
            remove(id)
        }
    }

    // MARK: Changes

    /// Delivers committed changes, in order, to the streams they touch; changes at or before ``sequence`` are
    /// skipped.
    func apply(_ changes: [TreeChange]) {
        for change in changes where change.sequence > sequence {
            deliver(change)
            sequence = change.sequence
            statistics.sequence = sequence
            statistics.changesProcessed += 1
        }
    }

    /// Reads the change log from ``sequence`` until it is exhausted, after the hub fell behind the feed and dropped
    /// changes. Returns `false` when the store failed; the caller retries later.
    func catchUp() -> Bool {
        statistics.catchUps += 1
        // With no stream open, nothing waits for these changes; the next stream's read sets the position.
        guard !listeners.isEmpty else { return true }
        let pageSize = max(1, environment.configuration.logPageSize)
        while true {
            let page: [TreeChange]
            do {
                page = try environment.source.treeChanges(after: sequence, limit: pageSize)
            } catch {
                environment.report(.catchUpFailed(error))
                return false
            }
            if let first = page.first, first.sequence > sequence + 1 {
                // Changes after the position were pruned from the log before the hub read them: no stream can be
                // brought up to date change by change, so each gets its location afresh.
                resynchronize()
            }
            apply(page)
            if page.count < pageSize || page.isEmpty { return true }
        }
    }

    /// Sends every stream its location afresh (a `put` at `/`, which clients take as the whole new value), after
    /// changes it should have received were lost.
    private func resynchronize() {
        statistics.resynchronizations += 1
        for id in listeners.keys.sorted() {
            guard var listener = listeners[id] else { continue }
            if let refusal = refusal(of: listener) {
                end(listener, with: refusal)
                continue
            }
            switch start(&listener) {
            case .sent: listeners[id] = listener
            case .refused: remove(id)
            case .gone: cutOff(id)
            }
        }
    }

    /// Sends each change to the streams it touches. Each of them is judged first, and one that fails gets
    /// `auth_revoked` or `cancel` instead of the change, and is closed.
    private func deliver(_ change: TreeChange) {
        var ids = Set<Int>()
        for update in change.updates {
            ids.formUnion(index.listeners(namespace: change.namespace, touching: change.path.appending(update.path)))
        }
        var frames: [FrameKey: [UInt8]] = [:]
        // In ID order (the order streams opened), so what a test or a log sees does not depend on hashing.
        for id in ids.sorted() {
            guard var listener = listeners[id] else { continue }
            if let refusal = refusal(of: listener) {
                end(listener, with: refusal)
                continue
            }
            let event = listener.event(for: change)
            listeners[id] = listener
            guard let event else { continue }
            // Query streams' events depend on their windows; others only on location and format.
            let key = FrameKey(
                location: listener.location, format: listener.format, listener: listener.query == nil ? nil : id)
            let frame = frames[key] ?? event.frame(listener.format)
            frames[key] = frame
            statistics.eventsSent += 1
            if !listener.sink.send(event, frame: frame) { cutOff(id) }
        }
    }

    // MARK: Keep-alives and access

    /// Keep-alives to every stream, and the periodic re-check of each stream's access and credential (revocation,
    /// disabled accounts, expired tokens).
    func keepAlive() {
        for id in listeners.keys.sorted() {
            guard let listener = listeners[id] else { continue }
            if let refusal = refusal(of: listener) {
                end(listener, with: refusal)
                continue
            }
            statistics.keepAlivesSent += 1
            if !listener.sink.send(.keepAlive, frame: Self.keepAliveFrame) { cutOff(id) }
        }
    }

    /// Re-judges every stream now (after the rules changed); streams that may no longer read get `cancel`.
    func recheckAccess() {
        for id in listeners.keys.sorted() {
            guard let listener = listeners[id], let refusal = refusal(of: listener) else { continue }
            end(listener, with: refusal)
        }
    }

    /// Why `listener` may no longer receive data: `auth_revoked` once its ID token has expired or its credential no
    /// longer verifies (revoked, account disabled or deleted), `cancel` once the rules refuse it a read of its
    /// location (a failed read of the rules' data counts as a refusal); `nil` while it may.
    private func refusal(of listener: TreeListener) -> TreeEvent? {
        if let expiry = listener.expiresAt, environment.nowMillis() >= expiry * 1000 { return .authRevoked }
        if let check = listener.request.credentialStillValid, !check() { return .authRevoked }
        do {
            return try environment.authorizer.canRead(listener.request) ? nil : .cancel
        } catch {
            environment.report(.accessCheckFailed(error))
            return .cancel
        }
    }

    /// Sends `event` (`cancel` or `auth_revoked`), closes the stream and forgets it.
    private func end(_ listener: TreeListener, with event: TreeEvent) {
        _ = listener.sink.send(event, frame: event.frame())
        listener.sink.close()
        statistics.streamsRefused += 1
        remove(listener.id)
    }

    private func cutOff(_ id: Int) {
        statistics.streamsCutOff += 1
        remove(id)
    }

    private func remove(_ id: Int) {
        guard let listener = listeners.removeValue(forKey: id) else { return }
        index.remove(id, namespace: listener.namespace, at: listener.location)
        refreshGauges()
        ended(id)
    }

    private func ended(_ id: Int) {
        environment.listenerEnded(id)
    }

    private func refreshGauges() {
        statistics.listeners = listeners.count
    }

    private static let keepAliveFrame = TreeEvent.keepAlive.frame()

    private struct FrameKey: Hashable {
        var location: TreePath
        var format: TreeFormat
        var listener: Int?
    }
}
