import Foundation
internal import HearthPostgres

extension PostgresConnections {
    /// How many times a transaction that keeps losing conflicts with other nodes' is run before giving up.
    static let conflictAttempts = 8

    /// Runs `body` in one transaction begun with `begin`, from the start again whenever it lost a conflict with
    /// another node's transaction — a serialization failure or a deadlock (40001, 40P01), and with
    /// `uniqueViolations` also 23505 (another node's insert won the race between this one's check and its insert) —
    /// up to ``conflictAttempts`` times in all. The one place such conflicts are settled: the rerun sees the winner's
    /// commit, so it answers as if the two had run one after the other. `body` may run more than once: it must only
    /// touch the database.
    ///
    /// - Throws: the last attempt's `PostgresError` when every attempt lost a conflict (so a caller told the kind it
    ///   retries knows the attempts ran out); anything else `body` or the connection throws, at once.
    func withConflictRetries<T>(
        _ begin: String, uniqueViolations: Bool = false, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        var attempt = 1
        while true {
            do {
                return try withTransaction(begin, body)
            } catch let error as PostgresError
                where attempt < Self.conflictAttempts
                && (error.isRetryable || (uniqueViolations && error.kind == .uniqueViolation))
            {
                // A short random pause, growing with each attempt, so two nodes that collided do not collide again
                // in lockstep.
                usleep(UInt32.random(in: 0...UInt32(1_000 << min(attempt, 6))))
                attempt += 1
            }
        }
    }
}
