import Foundation
package import HearthAuth
internal import HearthPostgres

/// The accounts in the PostgreSQL database of a document engine, on its connections: every node on the database
/// sees every account, refresh token and one-time code at once.
package final class PostgresAccountStorage: AccountStorage {
    private let store: PostgresDocumentStore

    /// The accounts in the database of `store` (migrated when it opened), which its owner closes.
    package init(store: PostgresDocumentStore) {
        self.store = store
    }

    /// Runs `body` in one `SERIALIZABLE` transaction, so two nodes' checks-then-writes (a duplicate email, a code
    /// taken twice) cannot both pass; the unique constraints back that up.
    ///
    /// A transaction that lost a conflict to another node's (40001, 40P01, or 23505 when another node's insert won
    /// the race between this one's check and its insert) is run again from the start
    /// (``PostgresConnections/withConflictRetries(_:uniqueViolations:_:)``). The rerun's checks see the winner's
    /// commit, so the caller answers exactly as one node would (`EMAIL_EXISTS`, `FEDERATED_USER_ID_ALREADY_LINKED`,
    /// `DUPLICATE_LOCAL_ID`, …), and a write that merely collided (two password changes) succeeds. `body` may run
    /// more than once: it must only touch `rows`.
    package func writeAccounts<T: Sendable>(_ body: (any AccountRows) throws -> T) throws -> T {
        do {
            return try store.writer.withConflictRetries("BEGIN ISOLATION LEVEL SERIALIZABLE", uniqueViolations: true) {
                db in try body(PostgresAccountRows(db: db))
            }
        } catch let error as AuthError {
            throw error
        } catch let error as PostgresError where error.isRetryable {
            throw AuthError(
                "TOO_MANY_ATTEMPTS_TRY_LATER",
                "the accounts kept conflicting with other writes (\(PostgresConnections.conflictAttempts) attempts); retry",
                status: 503, statusName: "UNAVAILABLE")
        } catch {
            // A unique violation every rerun repeats is no race: a check the account logic lacks.
            throw hearthError(error, doing: "writing the accounts")
        }
    }

    /// Runs `body` on one read-only snapshot.
    package func readAccounts<T: Sendable>(_ body: (any AccountRows) throws -> T) throws -> T {
        do {
            return try store.readers.withTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { db in
                try body(PostgresAccountRows(db: db))
            }
        } catch let error as AuthError {
            throw error
        } catch {
            throw hearthError(error, doing: "reading the accounts")
        }
    }
}
