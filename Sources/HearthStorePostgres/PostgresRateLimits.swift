package import HearthAuth
internal import HearthPostgres

/// The rate limits' token buckets in the PostgreSQL database every node shares (`auth_rate_buckets`): an attacker
/// spreading guesses over the nodes meets one budget, not one per node.
///
/// A bucket changes in one transaction holding its row lock, so two nodes' attempts on one key are counted one
/// after the other; a transaction that lost a deadlock or a serialization failure to another node's runs again
/// (``PostgresConnections/withConflictRetries(_:uniqueViolations:_:)``). When PostgreSQL cannot be reached, or the
/// conflicts never end, the attempt is refused with `UNAVAILABLE`: letting it through would give an attacker who can
/// disturb the database unlimited guesses, and the sign-in it guards reads the accounts from the same database anyway.
package final class PostgresRateLimits: RateLimitStorage {
    private let store: PostgresDocumentStore

    /// The buckets in the database of `store` (migrated when it opened), which its owner closes.
    package init(store: PostgresDocumentStore) {
        self.store = store
    }

    package func change(
        scope: String, key: String, limit: RateLimits.Limit, now: Double, spend: Bool
    ) throws(AuthError) -> Bool {
        do {
            return try store.writer.withConflictRetries("BEGIN") { db in
                if spend {
                    // The row exists before it is locked: two nodes' first attempts on a new key would otherwise
                    // both find no row to lock, both count from a full bucket, and the later upsert would overwrite
                    // the earlier one's spend.
                    try db.query(
                        """
                        INSERT INTO auth_rate_buckets(scope, key, tokens, updated) VALUES ($1, $2, $3, $4)
                        ON CONFLICT (scope, key) DO NOTHING
                        """, [.text(scope), .text(key), .text(String(Double(limit.count))), .text(String(now))])
                }
                let rows = try db.query(
                    "SELECT tokens, updated FROM auth_rate_buckets WHERE scope = $1 AND key = $2"
                        + (spend ? " FOR UPDATE" : ""), [.text(scope), .text(key)])
                let bucket =
                    if rows.count > 0, let tokens = Double(try rows[0].string(0) ?? ""),
                        let updated = Double(try rows[0].string(1) ?? "")
                    {
                        RateBucket(tokens: tokens, updated: updated)
                    } else {
                        RateBucket(tokens: Double(limit.count), updated: now)
                    }
                let (next, allowed) = bucket.attempt(at: now, limit: limit, spend: spend)
                if spend {
                    // An upsert, not an update: another node's pruning may have deleted the idle row just inserted
                    // over.
                    try db.query(
                        """
                        INSERT INTO auth_rate_buckets(scope, key, tokens, updated) VALUES ($1, $2, $3, $4)
                        ON CONFLICT (scope, key) DO UPDATE SET tokens = excluded.tokens, updated = excluded.updated
                        """,
                        [.text(scope), .text(key), .text(String(next.tokens)), .text(String(next.updated))])
                    // Buckets idle for a whole window are full again, so keeping them changes nothing.
                    if Int.random(in: 0..<100) == 0 {
                        try db.query(
                            "DELETE FROM auth_rate_buckets WHERE scope = $1 AND updated < $2",
                            [.text(scope), .text(String(now - Double(limit.seconds)))])
                    }
                }
                return allowed
            }
        } catch {
            let cause = hearthError(error, doing: "counting an attempt").message
            throw AuthError(
                "UNAVAILABLE", "the rate limit could not count this attempt (\(cause)); retry", status: 503,
                statusName: "UNAVAILABLE", reason: "backendError")
        }
    }

    package func reset(scope: String, key: String) {
        _ = try? store.writer.withConnection(idempotent: true) { db in
            try db.query("DELETE FROM auth_rate_buckets WHERE scope = $1 AND key = $2", [.text(scope), .text(key)])
        }
    }
}
