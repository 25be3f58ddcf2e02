import Dispatch
import Foundation
import HearthStore
import Synchronization

/// What a hub's thread drives: one protocol's core (documents: ``ListenHubCore``; tree: ``TreeHubCore``), called
/// from that thread only, one call at a time.
protocol HubDriver<Record, Command>: AnyObject, SendableMetatype {
    /// What the feed publishes.
    associatedtype Record: Sendable
    /// What callers queue for the thread (open, request, close …).
    associatedtype Command: Sendable

    /// Applies consecutive feed records, in commit order.
    func apply(_ records: [Record], now: Duration)
    /// Carries out one queued command.
    func handle(_ command: Command, now: Duration)
    /// Re-reads the change log from the driver's own position, after the inbox dropped records. Returns `false`
    /// when the store failed; the runner tries again on its next pass.
    func catchUp(now: Duration) -> Bool
    /// Called once per tick: heartbeats, keep-alives, periodic re-checks.
    func heartbeat(now: Duration)
    /// Called after every pass (gauges, statistics).
    func passEnded()
    /// Ends everything, as the hub stops; the last call the driver gets.
    func stop()
}

/// The machinery both listener hubs run on: one thread, an inbox that holds at most `maxQueuedRecords` feed records
/// (past that it drops them and has the driver catch up from the change log), a tick for heartbeats, and a stop that
/// waits for the thread to end.
///
/// The feed's subscriber only calls ``received(_:)``, which queues and returns: the store's writer thread never waits
/// on listeners. Callers queue commands with ``post(_:)``; the thread carries out records and commands in arrival
/// order, batching consecutive records.
final class HubRunner<Record: Sendable, Command: Sendable>: Sendable {
    private enum Phase {
        case idle
        case running(ChangeFeed<Record>.Subscription)
        case stopped
    }

    private enum Item: Sendable {
        case records([Record])
        case command(Command)
        case stop
    }

    private struct Inbox: Sendable {
        var items: [Item] = []
        var queuedRecords = 0
        var overflowed = false
    }

    /// The thread's name.
    let name: String
    /// Feed records waiting beyond this are dropped and re-read from the change log.
    let maxQueuedRecords: Int
    /// How often the driver's ``HubDriver/heartbeat(now:)`` runs.
    let tick: Duration
    /// The monotonic clock ticks are measured by.
    let now: @Sendable () -> Duration
    private let inbox = Mutex(Inbox())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let phase = Mutex(Phase.idle)
    private let threadAlive = Atomic<Bool>(false)

    /// A runner not yet started. `now` is a monotonic clock (time since any fixed origin); `nil` uses the continuous
    /// clock.
    init(name: String, maxQueuedRecords: Int, tick: Duration, now: (@Sendable () -> Duration)? = nil) {
        self.name = name
        self.maxQueuedRecords = max(1, maxQueuedRecords)
        self.tick = max(tick, .milliseconds(1))
        self.now = now ?? { ContinuousClock.now - processStart }
    }

    /// Starts the thread, which builds its driver with `makeDriver` and then serves the inbox; `subscription` (the
    /// feed's, whose handler calls ``received(_:)``) is cancelled at ``stop()``. Returns `false`, cancelling
    /// `subscription`, when the runner was already started or stopped.
    func start<Driver: HubDriver<Record, Command>>(
        subscription: ChangeFeed<Record>.Subscription, makeDriver: @escaping @Sendable () -> Driver
    ) -> Bool {
        let started = phase.withLock { phase -> Bool in
            guard case .idle = phase else { return false }
            phase = .running(subscription)
            return true
        }
        guard started else {
            subscription.cancel()
            return false
        }
        threadAlive.store(true, ordering: .sequentiallyConsistent)
        let thread = Thread { [self] in
            run(makeDriver())
            threadAlive.store(false, ordering: .sequentiallyConsistent)
            finished.signal()
        }
        thread.name = name
        thread.start()
        return true
    }

    /// Cancels the feed subscription, has the driver end everything, and waits for the thread to be done.
    /// Idempotent; a runner never started just becomes stopped.
    func stop() {
        let subscription = phase.withLock { phase -> ChangeFeed<Record>.Subscription? in
            defer { phase = .stopped }
            if case .running(let subscription) = phase { return subscription }
            return nil
        }
        guard let subscription else { return }
        subscription.cancel()
        enqueue(.stop)
        finished.wait()
    }

    /// Whether the runner has started and not stopped.
    var isRunning: Bool {
        phase.withLock { phase in
            if case .running = phase { return true }
            return false
        }
    }

    /// Whether the runner's thread exists (started, and its last pass not yet finished).
    var isThreadAlive: Bool { threadAlive.load(ordering: .sequentiallyConsistent) }

    /// Queues feed records; past ``maxQueuedRecords`` drops every queued record instead and marks the inbox so the
    /// driver catches up from the change log. Called on the store's publishing thread: it only queues.
    func received(_ records: [Record]) {
        inbox.withLock { inbox in
            guard !inbox.overflowed else { return }
            if inbox.queuedRecords + records.count > maxQueuedRecords {
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

    /// Queues a command for the thread. Returns `false`, queuing nothing, unless the runner is running: a command it
    /// accepts is carried out before the thread stops.
    @discardableResult
    func post(_ command: Command) -> Bool {
        phase.withLock { phase in
            guard case .running = phase else { return false }
            enqueue(.command(command))
            return true
        }
    }

    private func enqueue(_ item: Item) {
        inbox.withLock { $0.items.append(item) }
        wake.signal()
    }

    private func run<Driver: HubDriver<Record, Command>>(_ driver: Driver) {
        var nextTick = now() + tick
        var retryCatchUp = false
        while true {
            let wait = max(nextTick - now(), .zero)
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(wait.nanoseconds)))
            let (items, catchUp) = inbox.withLock { inbox in
                defer {
                    inbox.items.removeAll(keepingCapacity: true)
                    inbox.queuedRecords = 0
                    inbox.overflowed = false
                }
                return (inbox.items, inbox.overflowed)
            }
            var batch: [Record] = []
            var stopping = false
            for item in items {
                if case .records(let records) = item {
                    // Consecutive commits go out together: one send per listener for all of them.
                    batch += records
                    if batch.count >= 4096 {
                        driver.apply(batch, now: now())
                        batch = []
                    }
                    continue
                }
                if !batch.isEmpty {
                    driver.apply(batch, now: now())
                    batch = []
                }
                switch item {
                case .records: break
                case .command(let command): driver.handle(command, now: now())
                case .stop: stopping = true
                }
            }
            if !batch.isEmpty { driver.apply(batch, now: now()) }
            if catchUp || retryCatchUp { retryCatchUp = !driver.catchUp(now: now()) }
            if now() >= nextTick {
                driver.heartbeat(now: now())
                nextTick = now() + tick
            }
            driver.passEnded()
            if stopping {
                driver.stop()
                driver.passEnded()
                return
            }
        }
    }
}

/// When this process started, the origin of the hubs' default monotonic clock.
let processStart = ContinuousClock.now

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int64.max : product + attoseconds / 1_000_000_000
    }
}
