package import HearthAuth

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
    package func writeAccounts<T: Sendable>(_ body: (any AccountRows) throws -> T) throws -> T {
        do {
            return try store.writer.withTransaction("BEGIN ISOLATION LEVEL SERIALIZABLE") { db in
                try body(PostgresAccountRows(db: db))
            }
        } catch let error as AuthError {
            throw error
        } catch {
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
