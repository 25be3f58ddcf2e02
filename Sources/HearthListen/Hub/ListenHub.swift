import Dispatch
import Foundation
public import HearthCore
import HearthStore
import Synchronization

/// The listener hub: sessions of listen targets, fed by the store's committed changes, answering in Firestore's
/// `ListenResponse` shapes through a transport-agnostic ``ListenSink`` per session.
///
/// Requests are checked on the caller's thread (``submit(_:session:caller:)`` throws at once for an unknown
/// session, another caller's session, or a taken target ID); the work — reading results, matching changes,
/// encoding, sending — happens on the hub's own thread, in commit order. The feed subscriber only queues records;
/// if the queue grows past ``ListenConfiguration/maxQueuedRecords`` they are dropped and re-read from the change log.
public final class ListenHub: Sendable {
    private let source: any ListenSource
    private let configuration: ListenConfiguration
    private let authorizer: any ListenAuthorizer
    private let now: @Sendable () -> Duration
    private let registry = Mutex(SessionRegistry())
    private let inbox = Mutex(Inbox())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let phase = Mutex(Phase.idle)
    private let published = Mutex(ListenStatistics())

    private enum Phase {
        case idle
        case running(ChangeFeed<ChangeRecord>.Subscription)
        case stopped
    }

    /// A hub reading `source`. `now` is a monotonic clock for heartbeats (time since any fixed origin); `nil` uses
    /// the continuous clock. Tests pass their own.
    public init(
        source: any ListenSource, configuration: ListenConfiguration = ListenConfiguration(),
        authorizer: any ListenAuthorizer = AllowAllListenAuthorizer(), now: (@Sendable () -> Duration)? = nil
    ) {
        self.source = source
        self.configuration = configuration
        self.authorizer = authorizer
        self.now = now ?? { ContinuousClock.now - processStart }
    }

    /// Subscribes to the feed, finds the change log's head, and starts the hub's thread.
    /// - Throws: the store's error when the change log cannot be read.
    public func start() throws(HearthError) {
        let subscription = source.changeFeed.subscribe { [weak self] records in self?.received(records) }
        let head: (sequence: Int64, time: Timestamp)
        do {
            head = try findHead()
        } catch {
            subscription.cancel()
            throw error
        }
        let started = phase.withLock { phase -> Bool in
            guard case .idle = phase else { return false }
            phase = .running(subscription)
            return true
        }
        guard started else {
            subscription.cancel()
            return
        }
        published.withLock { $0.sequence = head.sequence }
        let thread = Thread { [self] in run(from: head.sequence, readTime: head.time) }
        thread.name = "hearth-listen"
        thread.start()
    }

    /// Ends every session and stops the thread. Idempotent; blocks until the thread is done.
    public func stop() {
        let subscription = phase.withLock { phase -> ChangeFeed<ChangeRecord>.Subscription? in
            defer { phase = .stopped }
            if case .running(let subscription) = phase { return subscription }
            return nil
        }
        guard let subscription else { return }
        subscription.cancel()
        post(.stop)
        finished.wait()
    }

    /// Opens a session whose responses go to `sink`; returns its ID (random, unguessable).
    ///
    /// `credentialStillValid` re-checks the caller's credential before every delivery and heartbeat: once it answers
    /// `false` (the ID token expired or was revoked, the account was disabled or deleted) every target ends with
    /// `UNAUTHENTICATED` and the session closes, so the client signs in again and opens a new one.
    /// - Throws: `RESOURCE_EXHAUSTED` at ``ListenConfiguration/maxSessions``; `UNAVAILABLE` once stopped.
    public func openSession(
        database: DatabaseName, caller: ListenCaller, sink: any ListenSink,
        credentialStillValid: (@Sendable () -> Bool)? = nil
    ) throws(HearthError) -> String {
        guard case .running = phase.withLock({ $0 }) else {
            throw HearthError(.unavailable, "The listener hub is not running.")
        }
        let id = Self.newSessionID()
        try registry.withLock { registry throws(HearthError) in
            guard registry.entries.count < configuration.maxSessions else {
                throw HearthError(
                    .resourceExhausted, "Too many listen sessions are open (\(configuration.maxSessions)).")
            }
            registry.open(id, identity: caller.identity, database: database)
        }
        post(.open(id, database, caller, sink, credentialStillValid))
        return id
    }

    /// Checks a request against its session at once, then queues it for the hub's thread.
    /// - Returns: the request as it will be carried out (`addTarget` with ID 0 gets the server's choice).
    /// - Throws: `NOT_FOUND` (no such session), `PERMISSION_DENIED` (another caller's session), `INVALID_ARGUMENT`
    ///   (a target ID in use, or not in use for a removal), `RESOURCE_EXHAUSTED` (too many targets).
    @discardableResult
    public func submit(
        _ request: ListenRequest, session id: String, caller: ListenCaller
    ) throws(HearthError) -> ListenRequest {
        let admitted = try registry.withLock { registry throws(HearthError) in
            try registry.admit(request, session: id, caller: caller, maxTargets: configuration.maxTargetsPerSession)
        }
        post(.request(id, admitted))
        return admitted
    }

    /// Ends a session (its client went away). Unknown IDs are ignored.
    public func closeSession(_ id: String) {
        registry.withLock { $0.close(id) }
        post(.close(id))
    }

    /// The database a session was opened on, or `nil` when it does not exist.
    public func database(ofSession id: String) -> DatabaseName? {
        registry.withLock { $0.entries[id]?.database }
    }

    /// Counters, as of the hub thread's last pass.
    public var statistics: ListenStatistics { published.withLock { $0 } }

    // MARK: The feed side

    private func received(_ records: [ChangeRecord]) {
        inbox.withLock { inbox in
            guard !inbox.overflowed else { return }
            if inbox.queuedRecords + records.count > configuration.maxQueuedRecords {
                // Re-read from the change log instead of holding an unbounded queue.
                inbox.overflowed = true
                inbox.items.removeAll { if case .records = $0 { return true } else { return false } }
                inbox.queuedRecords = 0
                return
            }
            inbox.queuedRecords += records.count
            inbox.items.append(.records(records))
        }
        wake.signal()
    }

    private func post(_ item: Inbox.Item) {
        inbox.withLock { $0.items.append(item) }
        wake.signal()
    }

    /// The change log's newest sequence number and its commit time, found by probing `changes(after:limit: 1)`
    /// (an exponential then a binary search), since the store offers no direct way.
    private func findHead() throws(HearthError) -> (sequence: Int64, time: Timestamp) {
        guard var known = try source.changes(after: 0, limit: 1).first else { return (0, Self.wallClock()) }
        var step: Int64 = 1024
        var high = known.sequence + step
        while let next = try source.changes(after: high, limit: 1).first {
            known = next
            step = step < Int64.max / 4 ? step * 2 : step
            high = next.sequence + step
        }
        var low = known.sequence
        while low < high {
            let middle = low + (high - low) / 2
            if let next = try source.changes(after: middle, limit: 1).first {
                known = next
                low = next.sequence
            } else {
                high = middle
            }
        }
        return (known.sequence, known.commitTime)
    }

    static func wallClock() -> Timestamp {
        Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
    }

    private static func newSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Base64URL.encode(bytes)
    }

    // MARK: The hub's thread

    private func run(from sequence: Int64, readTime: Timestamp) {
        let environment = ListenHubCore.Environment(
            reader: SnapshotReader(source: source, pageSize: max(2, configuration.logPageSize)),
            configuration: configuration, authorizer: authorizer,
            sessionEnded: { [self] id in registry.withLock { $0.close(id) } },
            targetRemoved: { [self] key in registry.withLock { $0.release(key) } })
        let core = ListenHubCore(environment: environment, sequence: sequence, readTime: readTime)
        // Short ticks spread the heartbeats of many sessions out instead of sending them in bursts.
        let tick = min(max(configuration.heartbeatInterval / 4, .milliseconds(10)), .seconds(1))
        var nextHeartbeat = now() + tick
        var retryCatchUp = false
        while true {
            let wait = max(nextHeartbeat - now(), .zero)
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(wait.nanoseconds)))
            let (items, catchUp) = inbox.withLock { inbox in
                defer {
                    inbox.items.removeAll(keepingCapacity: true)
                    inbox.queuedRecords = 0
                    inbox.overflowed = false
                }
                return (inbox.items, inbox.overflowed)
            }
            var batch: [ChangeRecord] = []
            var stopping = false
            for item in items {
                if case .records(let records) = item {
                    // Consecutive commits go out together: one send and one marker per session for all of them.
                    batch += records
                    if batch.count >= 4096 {
                        core.apply(batch, now: now())
                        batch = []
                    }
                    continue
                }
                if !batch.isEmpty {
                    core.apply(batch, now: now())
                    batch = []
                }
                switch item {
                case .records: break
                case .open(let id, let database, let caller, let sink, let check):
                    core.open(
                        session: id, database: database, caller: caller, sink: sink, credentialStillValid: check,
                        now: now())
                case .request(let id, let request):
                    core.handle(request, session: id, now: now())
                case .close(let id):
                    core.close(session: id)
                case .stop:
                    stopping = true
                }
            }
            if !batch.isEmpty { core.apply(batch, now: now()) }
            if catchUp || retryCatchUp { retryCatchUp = !core.catchUp(now: now()) }
            if now() >= nextHeartbeat {
                core.heartbeat(now: now())
                nextHeartbeat = now() + tick
            }
            core.refreshGauges()
            published.withLock { $0 = core.statistics }
            if stopping {
                core.stop()
                core.refreshGauges()
                published.withLock { $0 = core.statistics }
                finished.signal()
                return
            }
        }
    }
}

/// When this process started, the origin of the hub's default monotonic clock.
let processStart = ContinuousClock.now

/// Work queued for the hub's thread, in arrival order.
private struct Inbox: Sendable {
    enum Item: Sendable {
        case records([ChangeRecord])
        case open(String, DatabaseName, ListenCaller, any ListenSink, (@Sendable () -> Bool)?)
        case request(String, ListenRequest)
        case close(String)
        case stop
    }

    var items: [Item] = []
    var queuedRecords = 0
    var overflowed = false
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int64.max : product + attoseconds / 1_000_000_000
    }
}
