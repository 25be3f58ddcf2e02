import Dispatch
import Foundation
internal import HearthPostgres
import HearthStore
import Synchronization

/// Tells the other nodes on a database that the change logs grew, at no cost to a commit: after a commit, this
/// node sends one `NOTIFY` on a connection of its own — outside every write transaction, so no commit waits on
/// PostgreSQL's notification queue lock — coalescing commits that come while one is on its way; and it listens on
/// another connection, waking its followers (``woken``) when any node's notification arrives. Missed notifications
/// (a dropped connection, PostgreSQL restarting) cost only latency: the followers poll as well.
///
/// The same connection listens for deployed rules (``rulesChannel``, sent by `PostgresRulesStorage` after a
/// deploy commits), for named databases dropped (``databasesChannel``, sent by `PostgresNamedDatabases.drop`),
/// and for relayed requests between nodes (``relayChannel``, `PostgresNodeRelay`), so none of them costs a
/// connection more per node.
final class PostgresFeedWakeUp: Sendable {
    /// The channel every node notifies and listens on.
    static let channel = "hearth_feed"
    /// The channel a node notifies after deploying rules.
    static let rulesChannel = "hearth_rules"
    /// The channel a node notifies after dropping a named database.
    static let databasesChannel = "hearth_databases"
    /// The channel nodes relay requests and answers on; the payload says for whom (`PostgresNodeRelay`).
    static let relayChannel = "hearth_relay"

    /// Fires when another node (or this one) announced a commit.
    let woken = ChangeFeed<Bool>()
    /// Fires when a node announced deployed rules, and after every (re)connection, when one may have been missed.
    let rulesWoken = ChangeFeed<Bool>()
    /// Fires when a node announced a dropped named database, and after every (re)connection, when one may have been
    /// missed.
    let databasesWoken = ChangeFeed<Bool>()
    /// The payloads of ``relayChannel``'s notifications, and `""` after every (re)connection, when some may have been
    /// missed.
    let relayWoken = ChangeFeed<String>()

    private let conninfo: String
    private let state = Mutex(State())
    private let notifier = DispatchQueue(label: "hearth.postgres.feed-notify")

    private struct State {
        var stopped = false
        /// A NOTIFY is queued or being sent; a commit meanwhile sets `again` instead of queueing another.
        var sending = false
        var again = false
        var notifyConnection: PostgresConnection?
    }

    /// Starts listening on the database at `conninfo`.
    init(conninfo: String) {
        self.conninfo = conninfo
        let thread = Thread { [weak self] in self?.listen() }
        thread.name = "hearth.postgres.feed-listen"
        thread.start()
    }

    /// Announces a commit of this node; returns at once.
    func announce() {
        let queue = state.withLock { state -> Bool in
            if state.stopped { return false }
            if state.sending {
                state.again = true
                return false
            }
            state.sending = true
            return true
        }
        if queue { notifier.async { [self] in send() } }
    }

    private func send() {
        while true {
            let connection = state.withLock { state -> PostgresConnection? in
                state.again = false
                if state.notifyConnection == nil {
                    state.notifyConnection = try? PostgresConnection(conninfo: conninfo)
                }
                return state.notifyConnection
            }
            do {
                try connection?.query("NOTIFY " + Self.channel)
            } catch {
                state.withLock { $0.notifyConnection = nil }
            }
            let more = state.withLock { state -> Bool in
                if state.again, !state.stopped { return true }
                state.sending = false
                return false
            }
            if !more { return }
        }
    }

    /// The listening loop, on its own thread: (re)connects, LISTENs, and wakes the followers per batch of
    /// notifications, until stopped.
    private func listen() {
        var connection: PostgresConnection?
        while !state.withLock({ $0.stopped }) {
            do {
                if connection == nil {
                    let fresh = try PostgresConnection(conninfo: conninfo)
                    try fresh.listen(Self.channel)
                    try fresh.listen(Self.rulesChannel)
                    try fresh.listen(Self.databasesChannel)
                    try fresh.listen(Self.relayChannel)
                    connection = fresh
                    // Whatever was announced while not listening: look once.
                    woken.publish([true])
                    rulesWoken.publish([true])
                    databasesWoken.publish([true])
                    relayWoken.publish([""])
                }
                if let received = try connection?.notifications(waitingUpTo: 200), !received.isEmpty {
                    if received.contains(where: { $0.channel == Self.channel }) { woken.publish([true]) }
                    if received.contains(where: { $0.channel == Self.rulesChannel }) { rulesWoken.publish([true]) }
                    if received.contains(where: { $0.channel == Self.databasesChannel }) {
                        databasesWoken.publish([true])
                    }
                    relayWoken.publish(received.filter { $0.channel == Self.relayChannel }.map(\.payload))
                }
            } catch {
                connection = nil
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    /// Stops listening (within one wait) and notifying.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.notifyConnection = nil
        }
    }
}
