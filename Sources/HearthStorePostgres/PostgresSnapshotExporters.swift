import Dispatch
import Foundation
internal import HearthPostgres
import Synchronization

/// The read-only transactions this node began, each a connection of its own inside `REPEATABLE READ` that exported
/// its snapshot (`pg_export_snapshot()`): the snapshot lives as long as that transaction stays open, and every
/// node's reads in the transaction import it. Each is closed when its transaction ends here, or at the latest when
/// it is past the snapshot lifetime (the transaction may have ended on another node) — a timer sees to that, so
/// an abandoned snapshot does not hold back PostgreSQL's vacuum for long.
final class PostgresSnapshotExporters: Sendable {
    private let conninfo: String
    /// How long after it began an exporter is closed whatever became of its transaction.
    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let open = Mutex<[String: (connection: PostgresConnection, began: Date)]>([:])
    private let stopped = Mutex(false)
    private let queue = DispatchQueue(label: "hearth.postgres.snapshots")

    init(conninfo: String, lifetime: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.conninfo = conninfo
        self.lifetime = lifetime
        self.now = now
        scheduleSweep()
    }

    /// Looks for snapshots past their lifetime every second until ``closeAll()``.
    private func scheduleSweep() {
        queue.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, !stopped.withLock({ $0 }) else { return }
            closeExpired()
            scheduleSweep()
        }
    }

    /// Opens a connection, pins a snapshot in it and answers the snapshot's name.
    func export() throws -> PostgresSnapshotName {
        let connection = try PostgresConnection(conninfo: conninfo)
        do {
            try connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let name = try connection.query("SELECT pg_export_snapshot()")[0].string(0) ?? ""
            let began = now()
            open.withLock { $0[name] = (connection, began) }
            return PostgresSnapshotName(name: name)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Ends the snapshot if this node holds it (another node's stays until its own node closes it).
    func close(_ name: PostgresSnapshotName) {
        guard let exporter = open.withLock({ $0.removeValue(forKey: name.name) }) else { return }
        end(exporter.connection)
    }

    /// Ends the snapshots past their lifetime, with a second's grace so that none ends before its transaction does.
    func closeExpired() {
        let cutoff = now().addingTimeInterval(-(lifetime + 1))
        let stale = open.withLock { open -> [PostgresConnection] in
            let names = open.filter { $0.value.began < cutoff }.map(\.key)
            return names.compactMap { open.removeValue(forKey: $0)?.connection }
        }
        stale.forEach(end)
    }

    /// Ends every snapshot this node holds and stops the timer.
    func closeAll() {
        stopped.withLock { $0 = true }
        let all = open.withLock { open -> [PostgresConnection] in
            defer { open.removeAll() }
            return open.values.map(\.connection)
        }
        all.forEach(end)
    }

    private func end(_ connection: PostgresConnection) {
        _ = try? connection.query("ROLLBACK")
        connection.close()
    }
}
