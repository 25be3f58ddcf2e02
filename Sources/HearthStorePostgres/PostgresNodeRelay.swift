import Dispatch
package import HearthCore
internal import HearthPostgres
import HearthStore
import Synchronization

/// Relays requests between the nodes on one PostgreSQL database (``NodeRelay``), through the `node_relays` table and
/// the feed wake-up's LISTEN connection (``PostgresFeedWakeUp/relayChannel``):
///
/// - the sender inserts a row naming the target node, then sends `NOTIFY hearth_relay, 'q:<target>'`;
/// - the target, woken, takes its rows (`FOR UPDATE SKIP LOCKED`), answers each with its handler, writes the answer
///   and sends `'a:<row id>'`;
/// - the sender, woken (or at its timeout), deletes its row and reads the answer from it.
///
/// Each statement runs on its own (autocommit), never inside a document write transaction. A sender keeps at most
/// ``maxWaiting`` rows at once, so the table holds at most that many per live node; rows a dead sender left behind are
/// swept by age. A lost notification costs only time: a target looks for rows after every (re)connection of its
/// listener and at every ``pollInterval``, and a sender reads its row at its timeout whatever woke it.
package final class PostgresNodeRelay: NodeRelay {
    package let nodeID: String
    /// How long a sender waits for an answer before taking the target for gone.
    package let timeout: Duration
    /// The most messages of this node waiting for answers at once.
    package let maxWaiting: Int
    /// How often a serving node looks for rows without a notification.
    package let pollInterval: Duration

    private let store: PostgresDocumentStore
    private let queue = DispatchQueue(label: "hearth.postgres.relay")
    private let state = Mutex(State())
    /// Rows older than this are a dead sender's: no sender waits this long.
    private static let sweepAge = "1 minute"
    private static let batch = 32

    private struct State {
        var waiting: [String: DispatchSemaphore] = [:]
        var counter: Int64 = 0
        var handler: (@Sendable ([UInt8]) -> [UInt8])?
        var subscription: ChangeFeed<String>.Subscription?
        /// A pass over this node's rows is queued or running; a wake-up meanwhile sets `again`.
        var passing = false
        var again = false
        var stopped = false
        var lastSweep: ContinuousClock.Instant?
    }

    /// The relay of `store`'s database (migrated when it opened), under a new random node ID.
    package init(
        store: PostgresDocumentStore, timeout: Duration = .seconds(3), maxWaiting: Int = 64,
        pollInterval: Duration = .seconds(2)
    ) {
        self.store = store
        self.timeout = timeout
        self.maxWaiting = maxWaiting
        self.pollInterval = pollInterval
        var generator = SystemRandomNumberGenerator()
        nodeID = Base64URL.encode((0..<9).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let subscription = store.wakeUp.relayWoken.subscribe { [weak self] payloads in
            self?.woken(payloads)
        }
        state.withLock { $0.subscription = subscription }
    }

    deinit {
        state.withLock { $0.subscription?.cancel() }
    }

    // MARK: - Sending

    package func send(_ message: [UInt8], to node: String) throws(HearthError) -> [UInt8]? {
        let signal = DispatchSemaphore(value: 0)
        let id = try state.withLock { state throws(HearthError) -> String? in
            if state.stopped { return nil }
            guard state.waiting.count < maxWaiting else {
                throw HearthError(
                    .resourceExhausted,
                    "Too many requests of this node are waiting for other nodes (\(maxWaiting)); retry shortly.")
            }
            state.counter += 1
            let id = nodeID + "." + String(state.counter)
            // Registered before the row exists, so an answer however fast finds its waiter.
            state.waiting[id] = signal
            return id
        }
        guard let id else { return nil }
        defer { _ = state.withLock { $0.waiting.removeValue(forKey: id) } }
        do {
            try store.writer.withConnection(idempotent: false) { db in
                try db.query(
                    "INSERT INTO node_relays(id, origin_node, target_node, message) VALUES ($1, $2, $3, $4)",
                    [.text(id), .text(nodeID), .text(node), .binary(message)])
                try db.query("SELECT pg_notify($1, $2)", [.text(PostgresFeedWakeUp.relayChannel), .text("q:" + node)])
            }
        } catch {
            throw hearthError(error, doing: "relaying a request to another node")
        }
        _ = signal.wait(timeout: .now() + .nanoseconds(timeout.wholeNanoseconds))
        // Whatever woke the wait (the answer, or the timeout), the row says: answered or not, it is gone after this.
        do {
            return try store.writer.withConnection(idempotent: true) { db in
                let rows = try db.query("DELETE FROM node_relays WHERE id = $1 RETURNING answer", [.text(id)])
                return rows.count > 0 ? try rows[0].bytes(0) : nil
            }
        } catch {
            throw hearthError(error, doing: "reading another node's answer")
        }
    }

    // MARK: - Serving

    package func serve(_ handler: @escaping @Sendable ([UInt8]) -> [UInt8]) {
        let stopped = state.withLock { state -> Bool in
            state.handler = handler
            return state.stopped
        }
        if stopped { return }
        schedulePass()
        schedulePoll()
    }

    package func stop() {
        let (subscription, waiting) = state.withLock { state in
            state.stopped = true
            state.handler = nil
            defer { state.subscription = nil }
            return (state.subscription, Array(state.waiting.values))
        }
        subscription?.cancel()
        // Senders stop waiting now; each still reads (and removes) its row.
        for signal in waiting { signal.signal() }
    }

    /// On the listener's thread: hands the work off at once.
    private func woken(_ payloads: [String]) {
        var pass = false
        for payload in payloads {
            if payload.isEmpty || payload == "q:" + nodeID {
                pass = true
            } else if payload.hasPrefix("a:") {
                let id = String(payload.dropFirst(2))
                state.withLock { $0.waiting[id] }?.signal()
            }
        }
        if pass { schedulePass() }
    }

    private func schedulePass() {
        let start = state.withLock { state -> Bool in
            guard !state.stopped, state.handler != nil else { return false }
            if state.passing {
                state.again = true
                return false
            }
            state.passing = true
            return true
        }
        if start { queue.async { [self] in pass() } }
    }

    private func schedulePoll() {
        queue.asyncAfter(deadline: .now() + .nanoseconds(pollInterval.wholeNanoseconds)) { [weak self] in
            guard let self, !state.withLock({ $0.stopped }) else { return }
            schedulePass()
            schedulePoll()
        }
    }

    /// On `queue`: answers this node's rows, a batch at a time, until none is left and no wake-up came meanwhile.
    private func pass() {
        while true {
            guard let handler = state.withLock({ state in state.stopped ? nil : state.handler }) else { break }
            state.withLock { $0.again = false }
            let taken = (try? take()) ?? []
            for (id, message) in taken {
                let answer = handler(message)
                // A failed write leaves the sender to time out, as if this node were gone.
                _ = try? store.writer.withConnection(idempotent: true) { db in
                    let updated = try db.query(
                        "UPDATE node_relays SET answer = $2 WHERE id = $1 RETURNING id", [.text(id), .binary(answer)])
                    if updated.count > 0 {
                        try db.query(
                            "SELECT pg_notify($1, $2)", [.text(PostgresFeedWakeUp.relayChannel), .text("a:" + id)])
                    }
                }
            }
            sweepIfDue()
            let more = state.withLock { state -> Bool in
                if !state.stopped, state.again || taken.count == Self.batch { return true }
                state.passing = false
                return false
            }
            if !more { return }
        }
        state.withLock { $0.passing = false }
    }

    /// Marks a batch of this node's waiting rows taken and returns them. Their order does not matter: a client waits
    /// for the answer to one request before it sends the next.
    private func take() throws -> [(id: String, message: [UInt8])] {
        try store.writer.withConnection(idempotent: true) { db in
            try db.query(
                """
                UPDATE node_relays SET taken = true WHERE id IN (
                    SELECT id FROM node_relays WHERE target_node = $1 AND NOT taken
                    ORDER BY created_at LIMIT \(Self.batch) FOR UPDATE SKIP LOCKED)
                RETURNING id, message
                """, [.text(nodeID)]
            ).rows.compactMap { row -> (id: String, message: [UInt8])? in
                guard let id = try row.string(0), let message = try row.bytes(1) else { return nil }
                return (id, message)
            }
        }
    }

    /// Deletes rows no sender waits for any more (their sender died between inserting and reading), at most once per
    /// poll interval.
    private func sweepIfDue() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if let last = state.lastSweep, now - last < pollInterval { return false }
            state.lastSweep = now
            return true
        }
        guard due else { return }
        _ = try? store.writer.withConnection(idempotent: true) { db in
            try db.query("DELETE FROM node_relays WHERE created_at < now() - interval '\(Self.sweepAge)'")
        }
    }
}
