import HearthAuth
import HearthCore
import HearthLog
import HearthStorage
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite

/// The engine under a project's `(default)` database, and so under its tree and accounts too: the database's own
/// SQLite file, or the PostgreSQL database every node of a deployment shares. Everything above it — handlers, the
/// rules, both listener hubs — speaks only the store protocols.
enum DatabaseEngine: Sendable {
    /// `hearth.sqlite` in the database's directory.
    case sqlite(SQLiteDocumentStore)
    /// A PostgreSQL database, with the lock on the server's data directory (one server per directory, as on
    /// SQLite, whose store holds that lock itself).
    case postgres(PostgresDocumentStore, directoryLock: DataDirectoryLock)

    /// The documents.
    var documents: any DocumentStore {
        switch self {
        case .sqlite(let store): store
        case .postgres(let store, _): store
        }
    }

    /// The Realtime Database tree, in the same database as the documents.
    func tree() throws(HearthError) -> any TreeStore {
        switch self {
        case .sqlite(let store): SQLiteTreeStore(database: store.database)
        case .postgres(let store, _): try PostgresTreeStore(store: store)
        }
    }

    /// The accounts, in the same database as the documents (so the single SQLite writer, or PostgreSQL's
    /// transactions, run their writes).
    func accounts() throws(AuthError) -> AccountDatabase {
        switch self {
        case .sqlite(let store): try AccountDatabase(database: store.database)
        case .postgres(let store, _):
            AccountDatabase(
                storage: PostgresAccountStorage(store: store), signingKeys: PostgresSigningKeys(store: store),
                rateLimits: PostgresRateLimits(store: store))
        }
    }

    /// Where rules deployed at run time are kept: the data directory's `rules/` beside SQLite, or the PostgreSQL
    /// database every node shares. Rules a PostgreSQL node finds in its data directory (kept there before they were
    /// shared, or put there by `hearth import`) are deployed to the database, each unless the database has rules of
    /// that kind already.
    func rulesStorage(dataDirectory: String, logger: Logger) throws(HearthError) -> any RulesStorage {
        let files = DeployedRules(dataDirectory: dataDirectory)
        switch self {
        case .sqlite: return files
        case .postgres(let store, _):
            let shared = PostgresRulesStorage(store: store)
            for (kind, source) in files.deployedSources() where try shared.keepUnlessDeployed(source, as: kind) {
                logger.info(
                    "rules from the data directory deployed to PostgreSQL for every node",
                    ["file": .string(files.location(of: kind))])
            }
            return shared
        }
    }

    /// Where file storage's objects live when every node must serve them: the PostgreSQL database; `nil` on SQLite,
    /// whose file store keeps them in the data directory.
    func sharedObjects() -> (any SharedObjects)? {
        switch self {
        case .sqlite: nil
        case .postgres(let store, _): PostgresObjects(store: store)
        }
    }

    /// How a request for state only one node holds (a listen session) reaches that node from any other: through the
    /// PostgreSQL database; `nil` on SQLite, where one node holds everything.
    func nodeRelay() -> (any NodeRelay)? {
        switch self {
        case .sqlite: nil
        case .postgres(let store, _): PostgresNodeRelay(store: store)
        }
    }

    /// Finishes pending commits and closes the database. Idempotent.
    func close() {
        documents.close()
        if case .postgres(_, let lock) = self { lock.release() }
    }
}
