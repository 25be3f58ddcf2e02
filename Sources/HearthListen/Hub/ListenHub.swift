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
    private let clock: WallClock
    private let configuration: ListenConfiguration
    private let authorizer: any ListenAuthorizer
    private let registry = Mutex(SessionRegistry())
    private let runner: HubRunner<ChangeRecord, Command>
    private let published = Mutex(ListenStatistics())
    private let sessionPrefix: String

    /// Work queued for the hub's thread beside the feed's records.
    private enum Command: Sendable {
        case open(String, DatabaseName, ListenCaller, any ListenSink, (@Sendable () -> Bool)?)
        case request(String, ListenRequest)
        case close(String)
    }

    /// A hub reading `source`. `now` is a monotonic clock for heartbeats (time since any fixed origin); `nil` uses
    /// the continuous clock. `clock` is the wall clock read times come from while the change log is empty. Tests pass
    /// their own. Every session ID starts with `sessionPrefix`: a node's ID, which tells every other node where the
    /// session lives.
    public init(
        source: any ListenSource, configuration: ListenConfiguration = ListenConfiguration(),
        authorizer: any ListenAuthorizer = AllowAllListenAuthorizer(), now: (@Sendable () -> Duration)? = nil,
        clock: WallClock = .system, sessionPrefix: String = ""
    ) {
        self.sessionPrefix = sessionPrefix
        self.clock = clock
        self.source = source
        self.configuration = configuration
        self.authorizer = authorizer
        // Short ticks spread the heartbeats of many sessions out instead of sending them in bursts.
        runner = HubRunner(
            name: "hearth-listen", maxQueuedRecords: configuration.maxQueuedRecords,
            tick: min(max(configuration.heartbeatInterval / 4, .milliseconds(10)), .seconds(1)), now: now)
    }

    /// Subscribes to the feed, finds the change log's head, and starts the hub's thread.
    /// - Throws: the store's error when the change log cannot be read.
    public func start() throws(HearthError) {
        let subscription = source.changeFeed.subscribe { [weak self] records in self?.runner.received(records) }
        let head: (sequence: Int64, time: Timestamp)
        do {
            head = try findHead()
        } catch {
            subscription.cancel()
            throw error
        }
        published.withLock { $0.sequence = head.sequence }
        _ = runner.start(subscription: subscription) { [self] in
            Driver(core: makeCore(sequence: head.sequence, readTime: head.time)) { [self] statistics in
                published.withLock { $0 = statistics }
            }
        }
    }

    /// Ends every session and stops the thread. Idempotent; blocks until the thread is done.
    public func stop() {
        runner.stop()
    }

    /// Opens a session whose responses go to `sink`; returns its ID (the hub's prefix, then random, unguessable).
    ///
    /// `credentialStillValid` re-checks the caller's credential before every delivery and heartbeat: once it answers
    /// `false` (the ID token expired or was revoked, the account was disabled or deleted) every target ends with
    /// `UNAUTHENTICATED` and the session closes, so the client signs in again and opens a new one.
    /// - Throws: `RESOURCE_EXHAUSTED` at ``ListenConfiguration/maxSessions``; `UNAVAILABLE` once stopped.
    public func openSession(
        database: DatabaseName, caller: ListenCaller, sink: any ListenSink,
        credentialStillValid: (@Sendable () -> Bool)? = nil
    ) throws(HearthError) -> String {
        guard runner.isRunning else {
            throw HearthError(.unavailable, "The listener hub is not running.")
        }
        let id = sessionPrefix + Self.newSessionID()
        try registry.withLock { registry throws(HearthError) in
            guard registry.entries.count < configuration.maxSessions else {
                throw HearthError(
                    .resourceExhausted, "Too many listen sessions are open (\(configuration.maxSessions)).")
            }
            registry.open(id, identity: caller.identity, database: database)
        }
        guard runner.post(.open(id, database, caller, sink, credentialStillValid)) else {
            // Stopped since the check above: the thread will never see this session.
            registry.withLock { $0.close(id) }
            throw HearthError(.unavailable, "The listener hub is not running.")
        }
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
        runner.post(.request(id, admitted))
        return admitted
    }

    /// Ends a session (its client went away). Unknown IDs are ignored.
    public func closeSession(_ id: String) {
        registry.withLock { $0.close(id) }
        runner.post(.close(id))
    }

    /// The database a session was opened on, or `nil` when it does not exist.
    public func database(ofSession id: String) -> DatabaseName? {
        registry.withLock { $0.entries[id]?.database }
    }

    /// The answer to a request for a session that does not exist, on this node or any other.
    public static func unknownSession(_ id: String) -> HearthError {
        .notFound(
            "Listen session \"\(id.prefix(64))\" does not exist (it ended, or was never opened); open a new stream.")
    }

    /// Counters, as of the hub thread's last pass.
    public var statistics: ListenStatistics { published.withLock { $0 } }

    /// The change log's head and the read time of targets added before the next commit (the engine's, or the wall
    /// clock when the engine cannot tell).
    private func findHead() throws(HearthError) -> (sequence: Int64, time: Timestamp) {
        let head = try source.headAndTime()
        return (head.sequence, head.time ?? clock.now())
    }

    private static func newSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Base64URL.encode(bytes)
    }

    // MARK: The hub's thread

    private func makeCore(sequence: Int64, readTime: Timestamp) -> ListenHubCore {
        let environment = ListenHubCore.Environment(
            reader: SnapshotReader(source: source, pageSize: max(2, configuration.logPageSize)),
            configuration: configuration, authorizer: authorizer,
            sessionEnded: { [self] id in registry.withLock { $0.close(id) } },
            targetRemoved: { [self] key in registry.withLock { $0.release(key) } })
        return ListenHubCore(environment: environment, sequence: sequence, readTime: readTime)
    }

    /// The core as the runner drives it: commands become session calls, and each pass publishes the counters.
    private final class Driver: HubDriver {
        let core: ListenHubCore
        let publish: (ListenStatistics) -> Void

        init(core: ListenHubCore, publish: @escaping (ListenStatistics) -> Void) {
            self.core = core
            self.publish = publish
        }

        func apply(_ records: [ChangeRecord], now: Duration) { core.apply(records, now: now) }

        func handle(_ command: Command, now: Duration) {
            switch command {
            case .open(let id, let database, let caller, let sink, let check):
                core.open(
                    session: id, database: database, caller: caller, sink: sink, credentialStillValid: check, now: now)
            case .request(let id, let request):
                core.handle(request, session: id, now: now)
            case .close(let id):
                core.close(session: id)
            }
        }

        func catchUp(now: Duration) -> Bool { core.catchUp(now: now) }
        func heartbeat(now: Duration) { core.heartbeat(now: now) }

        func passEnded() {
            core.refreshGauges()
            publish(core.statistics)
        }

        func stop() { core.stop() }
    }
}
