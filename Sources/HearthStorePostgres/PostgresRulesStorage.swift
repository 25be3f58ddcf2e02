import Dispatch
package import HearthCore
internal import HearthPostgres
package import HearthStore
import Synchronization

/// Rules deployed at run time, in the PostgreSQL database every node shares (`deployed_rules`): a deploy on one node
/// is in force on every node, and a node started later loads it.
///
/// After a deploy commits, its node sends `NOTIFY hearth_rules`; every node's feed wake-up listens on that channel
/// and this storage then rereads the table's version (one small query) and, when it grew, every source. A
/// notification lost while a connection was down costs at most one ``pollInterval``: the version is polled too.
package final class PostgresRulesStorage: RulesStorage {
    /// The longest another node's deploy goes unseen when its notification was lost.
    package let pollInterval: Duration

    private let store: PostgresDocumentStore
    private let queue = DispatchQueue(label: "hearth.postgres.rules-watch")
    private let state = Mutex(State())

    private struct State {
        var handler: (@Sendable ([DeployedRulesKind: String]) -> Void)?
        var subscription: ChangeFeed<Bool>.Subscription?
        /// The newest version handed to the handler (or read by ``deployedSources()``); read on `queue`.
        var seen: Int64 = 0
        var stopped = false
    }

    /// The deployed rules in the database of `store` (migrated when it opened), which its owner closes.
    package init(store: PostgresDocumentStore, pollInterval: Duration = .seconds(5)) {
        self.store = store
        self.pollInterval = pollInterval
    }

    package func deployedSources() throws(HearthError) -> [DeployedRulesKind: String] {
        let (sources, version) = try readAll()
        state.withLock { $0.seen = max($0.seen, version) }
        return sources
    }

    /// Replaces the deployed rules of `kind` under a transaction-scoped advisory lock, so versions grow in commit
    /// order, then tells every node.
    package func keep(_ source: String, as kind: DeployedRulesKind) throws(HearthError) {
        _ = try write(source, as: kind, replacing: true)
    }

    /// Keeps `source` as the rules of `kind` unless some are deployed already (rules a node kept in its data
    /// directory before they were shared, or put there by `hearth import`); whether it kept them.
    @discardableResult
    package func keepUnlessDeployed(_ source: String, as kind: DeployedRulesKind) throws(HearthError) -> Bool {
        try write(source, as: kind, replacing: false)
    }

    package func location(of kind: DeployedRulesKind) -> String {
        let (name, id) = Self.key(of: kind)
        return id.isEmpty ? "deployed_rules (\(name))" : "deployed_rules (\(name) \(id))"
    }

    package func watch(_ handler: @escaping @Sendable ([DeployedRulesKind: String]) -> Void) {
        let subscription = store.wakeUp.rulesWoken.subscribe { [weak self] _ in
            self?.queue.async { [weak self] in self?.check() }
        }
        let stopped = state.withLock { state -> Bool in
            state.handler = handler
            state.subscription?.cancel()
            state.subscription = subscription
            return state.stopped
        }
        if stopped { subscription.cancel() }
        schedulePoll()
    }

    package func stopWatching() {
        let subscription = state.withLock { state in
            state.stopped = true
            state.handler = nil
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.cancel()
    }

    deinit {
        state.withLock { $0.subscription?.cancel() }
    }

    // MARK: - Database

    /// The advisory lock key deploys hold (distinct from the migrations', the catalog's and the signing keys').
    private static let lockKey: Int64 = 0x4865_6172_7468_0041

    private func write(_ source: String, as kind: DeployedRulesKind, replacing: Bool) throws(HearthError) -> Bool {
        let (name, id) = Self.key(of: kind)
        let kept: Bool
        do {
            kept = try store.writer.withTransaction("BEGIN") { db in
                try db.query("SELECT pg_advisory_xact_lock($1)", [.int(Self.lockKey)])
                let conflict =
                    replacing
                    ? "DO UPDATE SET source = excluded.source, version = excluded.version, deployed_at = now()"
                    : "DO NOTHING"
                let written = try db.query(
                    """
                    INSERT INTO deployed_rules(kind, id, source, version)
                    VALUES ($1, $2, $3, (SELECT coalesce(max(version), 0) + 1 FROM deployed_rules))
                    ON CONFLICT (kind, id) \(conflict) RETURNING version
                    """, [.text(name), .text(id), .text(source)])
                return written.count > 0
            }
        } catch {
            throw hearthError(error, doing: "keeping the deployed rules")
        }
        // Outside the transaction, as the feed's announcements: a lost one costs the others a poll interval.
        if kept {
            _ = try? store.writer.withConnection(idempotent: true) { db in
                try db.query("NOTIFY " + PostgresFeedWakeUp.rulesChannel)
            }
        }
        return kept
    }

    private func readAll() throws(HearthError) -> (sources: [DeployedRulesKind: String], version: Int64) {
        try store.read("reading the deployed rules") { db in
            var sources: [DeployedRulesKind: String] = [:]
            var version: Int64 = 0
            for row in try db.query("SELECT kind, id, source, version FROM deployed_rules").rows {
                version = max(version, try row.int(3) ?? 0)
                guard let kind = Self.kind(name: try row.string(0) ?? "", id: try row.string(1) ?? "") else {
                    continue
                }
                sources[kind] = try row.string(2) ?? ""
            }
            return (sources, version)
        }
    }

    /// On `queue`: when the version grew past the one last seen, hands every source to the handler. A failed read
    /// (PostgreSQL restarting) is tried again at the next notification or poll.
    private func check() {
        guard let handler = state.withLock({ $0.stopped ? nil : $0.handler }) else { return }
        guard
            let version = try? store.read(
                "reading the deployed rules' version",
                { db in
                    try db.query("SELECT coalesce(max(version), 0) FROM deployed_rules")[0].int(0) ?? 0
                }), version > state.withLock({ $0.seen }),
            let loaded = try? readAll()
        else { return }
        state.withLock { $0.seen = max($0.seen, loaded.version) }
        handler(loaded.sources)
    }

    private func schedulePoll() {
        queue.asyncAfter(deadline: .now() + .nanoseconds(max(1_000_000, pollInterval.wholeNanoseconds))) {
            [weak self] in
            guard let self, !state.withLock({ $0.stopped }) else { return }
            check()
            schedulePoll()
        }
    }

    /// The row key of `kind`.
    private static func key(of kind: DeployedRulesKind) -> (name: String, id: String) {
        switch kind {
        case .firestore: ("firestore", "")
        case .firestoreDatabase(let id): ("firestore-database", id)
        case .storage: ("storage", "")
        case .tree(let namespace): ("tree", namespace)
        }
    }

    /// The kind a row names; `nil` for one a newer Hearth wrote that this one does not know.
    private static func kind(name: String, id: String) -> DeployedRulesKind? {
        switch name {
        case "firestore": .firestore
        case "firestore-database": .firestoreDatabase(id)
        case "storage": .storage
        case "tree": .tree(id)
        default: nil
        }
    }
}
