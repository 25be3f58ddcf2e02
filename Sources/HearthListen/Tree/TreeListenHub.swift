import Foundation
import HearthCore
import HearthStore
import Synchronization

/// Delivers committed tree changes to open streams (`GET … Accept: text/event-stream`), in commit order, each change
/// once, through a transport-agnostic ``TreeListenSink`` per stream.
///
/// It runs on the same machinery as the document hub (``ListenHub``): one thread that reads each stream's first
/// snapshot, matches changes and sends (``TreeHubCore``); a feed subscriber that only queues, into an inbox of at most
/// ``TreeListenConfiguration/maxQueuedRecords`` changes, past which they are dropped and re-read from the change log;
/// keep-alive ticks; and a ``stop()`` that ends every stream and waits for the thread.
public final class TreeListenHub: Sendable {
    private enum Command: Sendable {
        case open(Int, TreeListenRequest, any TreeListenSink)
        case close(Int)
        case recheckAccess
    }

    private let source: any TreeListenSource
    private let configuration: TreeListenConfiguration
    private let authorizer: any TreeListenAuthorizer
    private let nowMillis: @Sendable () -> Int64
    private let report: @Sendable (TreeListenProblem) -> Void
    private let runner: HubRunner<TreeChange, Command>
    private let nextID = Atomic<Int>(0)
    /// Streams handed to ``open(_:sink:)`` and not yet let go of. Read without a lock by the writer's publishing
    /// thread, so a server with no streams pays nothing per write.
    private let listenerCount = Atomic<Int>(0)
    private let published = Mutex(TreeListenStatistics())

    /// A hub reading `source`, judging streams with `authorizer` and telling `report` what failed. `now` is a
    /// monotonic clock for keep-alive ticks and `nowMillis` the wall clock ID tokens expire by; `nil` uses the
    /// system's. Tests pass their own.
    public init(
        source: any TreeListenSource, configuration: TreeListenConfiguration = TreeListenConfiguration(),
        authorizer: any TreeListenAuthorizer = AllowAllTreeListenAuthorizer(),
        report: @escaping @Sendable (TreeListenProblem) -> Void = { _ in },
        now: (@Sendable () -> Duration)? = nil, nowMillis: (@Sendable () -> Int64)? = nil
    ) {
        self.source = source
        self.configuration = configuration
        self.authorizer = authorizer
        self.report = report
        self.nowMillis = nowMillis ?? { Int64(Date().timeIntervalSince1970 * 1000) }
        runner = HubRunner(
            name: "hearth-tree-listen", maxQueuedRecords: configuration.maxQueuedRecords,
            tick: configuration.keepAliveInterval, now: now)
    }

    /// Subscribes to the feed and starts the hub's thread. Idempotent; does nothing once stopped.
    public func start() {
        let subscription = source.treeFeed.subscribe { [weak self] changes in
            guard let self, self.listenerCount.load(ordering: .sequentiallyConsistent) > 0 else { return }
            self.runner.received(changes)
        }
        _ = runner.start(subscription: subscription) { [self] in
            Driver(core: makeCore()) { [self] statistics in published.withLock { $0 = statistics } }
        }
    }

    /// Ends every stream and stops the thread. Idempotent; blocks until the thread is done.
    public func stop() {
        runner.stop()
    }

    /// Whether the hub's thread exists: from ``start()`` until ``stop()`` has returned.
    public var isRunning: Bool { runner.isThreadAlive }

    /// Starts a stream whose events go to `sink`: on the hub's thread its location is read and the first `put` sent,
    /// then every change that touches it. Returns the stream's ID, for ``close(_:)``. Once the hub is stopped (or
    /// before it started) the sink is closed at once.
    @discardableResult
    public func open(_ request: TreeListenRequest, sink: any TreeListenSink) -> Int {
        let id = nextID.add(1, ordering: .sequentiallyConsistent).newValue
        // Counted before the snapshot is read, so the feed hands over every change committed from then on; a change
        // the snapshot already holds is skipped by its sequence number.
        listenerCount.add(1, ordering: .sequentiallyConsistent)
        if !runner.post(.open(id, request, sink)) {
            listenerCount.subtract(1, ordering: .sequentiallyConsistent)
            sink.close()
        }
        return id
    }

    /// Forgets a stream whose client went away. Unknown IDs are ignored.
    public func close(_ id: Int) {
        runner.post(.close(id))
    }

    /// Re-judges every stream (after the rules changed); streams that may no longer read get `cancel`.
    public func recheckAccess() {
        runner.post(.recheckAccess)
    }

    /// Streams handed to ``open(_:sink:)`` that the hub has not let go of.
    public var count: Int { listenerCount.load(ordering: .sequentiallyConsistent) }

    /// Counters, as of the hub thread's last pass.
    public var statistics: TreeListenStatistics { published.withLock { $0 } }

    private func makeCore() -> TreeHubCore {
        TreeHubCore(
            environment: TreeHubCore.Environment(
                source: source, configuration: configuration, authorizer: authorizer, nowMillis: nowMillis,
                report: report,
                listenerEnded: { [self] _ in listenerCount.subtract(1, ordering: .sequentiallyConsistent) }))
    }

    /// The core as the runner drives it.
    private final class Driver: HubDriver {
        let core: TreeHubCore
        let publish: (TreeListenStatistics) -> Void

        init(core: TreeHubCore, publish: @escaping (TreeListenStatistics) -> Void) {
            self.core = core
            self.publish = publish
        }

        func apply(_ records: [TreeChange], now: Duration) { core.apply(records) }

        func handle(_ command: Command, now: Duration) {
            switch command {
            case .open(let id, let request, let sink): core.open(id, request, sink: sink)
            case .close(let id): core.close(id)
            case .recheckAccess: core.recheckAccess()
            }
        }

        func catchUp(now: Duration) -> Bool { core.catchUp() }
        func heartbeat(now: Duration) { core.keepAlive() }
        func passEnded() { publish(core.statistics) }
        func stop() { core.stop() }
    }
}
