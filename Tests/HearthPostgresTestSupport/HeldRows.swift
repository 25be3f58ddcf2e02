import Foundation
public import HearthPostgres

/// Rows locked from outside every node (`SELECT … FOR UPDATE` in a transaction of its own), so that statements from
/// several nodes that need them queue behind the lock and meet at the database once it is let go: a race made
/// certain rather than hoped for.
public final class HeldRows: Sendable {
    private let conninfo: String
    private let connection: PostgresConnection

    /// Locks the rows `select` (a `SELECT … FOR UPDATE`) finds in the database at `conninfo`.
    public init(conninfo: String, _ select: String, _ parameters: [PostgresParameter] = []) throws {
        self.conninfo = conninfo
        connection = try PostgresConnection(conninfo: conninfo)
        do {
            try connection.query("BEGIN")
            try connection.query(select, parameters)
        } catch {
            connection.close()
            throw error
        }
    }

    deinit { connection.close() }

    /// Returns once `count` statements whose text is like the `LIKE` pattern `pattern` wait for a lock.
    public func waitForWaiters(_ count: Int, like pattern: String) throws {
        let observer = try PostgresConnection(conninfo: conninfo)
        defer { observer.close() }
        // Bounded only so that statements that never queue fail the test instead of hanging it.
        for _ in 0..<6_000 {
            let waiting = try observer.query(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1
                """, [.text(pattern)])[0].int(0)
            if (waiting ?? 0) >= Int64(count) { return }
            usleep(10_000)
        }
        throw TestCluster.Failure(description: "\(count) statements like \(pattern) never waited for a lock together.")
    }

    /// Lets the rows go, changing nothing (`COMMIT`).
    public func release() throws {
        try connection.query("COMMIT")
    }
}
