import Foundation
import HearthAuth
import HearthCore
import HearthHTTP
import HearthLog
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import Synchronization

/// What every database of one project judges and serves with.
struct ProjectContext: Sendable {
    /// The server's configuration with this project's ID and data directory.
    let configuration: ServerConfiguration
    let logger: Logger
    let clock: WallClock
    let rules: RulesEngine
    let authenticator: RequestAuthenticator
    /// Where reads whose cost grows with the data run; one pool for the whole server.
    let readWorkers: WorkerPool
}

/// The thread pools every project shares, so a second project adds no threads beyond its databases' own.
struct SharedPools: Sendable {
    /// Queries, batch reads and listings.
    let reads: WorkerPool
    /// Accounts work (password hashing, token checks).
    let accounts: WorkerPool
}

/// One project's part of a server: its accounts, its document and storage rules, and its Firestore databases, each
/// in a directory of its own. The served project lives in the data directory itself; in development mode each
/// other project ID a request names gets one of these in `projects/{id}` (see ``ProjectRegistry``), so two apps or
/// two test runs on one server never see each other's documents, accounts, listeners or rules, and a project is
/// removed with its directory.
final class ProjectServer: Sendable {
    let context: ProjectContext
    let accounts: AccountService
    /// The `(default)` database, in the project's data directory; its file also holds the accounts and the tree.
    let defaultDatabase: DatabaseServer
    private let accountsAPI: AccountsAPI
    private let rulesAPI: RulesAPI
    private let named = Mutex<[String: OpenNamed]>([:])
    /// On PostgreSQL, the subscription that closes named databases other nodes dropped (``closeDroppedDatabases()``).
    private let dropWatch = Mutex<ChangeFeed<Bool>.Subscription?>(nil)
    /// Where those checks run, one at a time, off the listening connection's thread.
    private let dropChecks = DispatchQueue(label: "hearth.named-database-drops")

    /// An open named database and, on PostgreSQL, the incarnation it was opened on
    /// (``PostgresNamedDatabases/incarnation(_:conninfo:)``; `nil` until read).
    private struct OpenNamed {
        let server: DatabaseServer
        var incarnation: Int64?
    }

    var configuration: ServerConfiguration { context.configuration }
    var rules: RulesEngine { context.rules }
    var authenticator: RequestAuthenticator { context.authenticator }

    /// Opens the project from `configuration` (whose `projectID` and `dataDirectory` are this project's); call
    /// ``start()`` before serving.
    init(
        configuration: ServerConfiguration, logger: Logger, clock: WallClock, sessions: ConsoleSessions,
        pools: SharedPools, boundPort: @escaping @Sendable () -> Int
    ) throws(HearthError) {
        let engine = try DatabaseServer.openEngine(
            id: "(default)", directory: configuration.dataDirectory,
            declaredIndexes: try HearthApplication.indexDefinitions(configuration), configuration: configuration,
            logger: logger, clock: clock)
        let accounts: AccountService
        let rules: RulesEngine
        do {
            accounts = try AccountsSetup.makeService(configuration, engine: engine, logger: logger, clock: clock)
        } catch {
            engine.close()
            throw error
        }
        do {
            rules = try RulesEngine(
                configuration: configuration, logger: logger,
                storage: try engine.rulesStorage(dataDirectory: configuration.dataDirectory, logger: logger))
        } catch {
            accounts.close()
            engine.close()
            throw error
        }
        self.accounts = accounts
        let authenticator = RequestAuthenticator(service: accounts, sessions: sessions)
        context = ProjectContext(
            configuration: configuration, logger: logger, clock: clock, rules: rules, authenticator: authenticator,
            readWorkers: pools.reads)
        defaultDatabase = DatabaseServer(id: "(default)", engine: engine, project: context)
        accountsAPI = AccountsAPI(
            service: accounts, authenticator: authenticator, configuration: configuration, workers: pools.accounts,
            logger: logger, boundPort: boundPort)
        rulesAPI = RulesAPI(engine: rules, configuration: configuration, authenticator: authenticator)
    }

    /// Starts the default database's listeners (named ones start when first opened).
    func start() throws(HearthError) {
        try defaultDatabase.start()
        if case .postgres(let store, _) = defaultDatabase.engine {
            let subscription = PostgresNamedDatabases.watchDrops(of: store) { [weak self] in
                self?.dropChecks.async { [weak self] in self?.closeDroppedDatabases() }
            }
            dropWatch.withLock { $0 = subscription }
        }
    }

    /// Ends every listener, then closes the accounts and the databases. Idempotent.
    func stop() {
        dropWatch.withLock { watch in
            watch?.cancel()
            watch = nil
        }
        let databases = named.withLock { named in
            defer { named = [:] }
            return named.values.map(\.server)
        }
        for database in databases { database.stop() }
        context.rules.stop()
        defaultDatabase.listenHub.stop()
        // The accounts before their database: queued mail may still write through its writer.
        accounts.close()
        defaultDatabase.engine.close()
    }

    /// The answer when `request` is one of this project's APIs', else `nil`.
    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        // Documents first: the hot path, parsed once.
        let route: DocumentsRoute?
        do {
            route = try DocumentsRoute.parse(request.path)
        } catch {
            return ("documents.invalid", .response(Responses.error(error)))
        }
        if let route {
            do {
                let database = try database(route.database, creating: configuration.devMode)
                return database.documents.reply(to: request, route: route)
            } catch {
                return ("documents.database", .response(Responses.error(error)))
            }
        }
        if let scoped = DatabaseScopedPath.parse(request.path) {
            do {
                let database = try database(scoped.database, creating: configuration.devMode)
                switch scoped.kind {
                case .indexes: return database.indexes.reply(to: request)
                case .wipe: return database.wipe.reply(to: request)
                }
            } catch {
                return ("\(scoped.kind.rawValue).database", .response(Responses.error(error)))
            }
        }
        return accountsAPI.reply(to: request) ?? rulesAPI.reply(to: request)
            ?? DatabasesAPI(project: self).reply(to: request)
    }

    /// The open database `name` names; a named one is opened on first use when its directory exists (on PostgreSQL,
    /// when the store holds it), or made when `creating` (development mode, as the emulator serves any database a
    /// client names).
    /// - Throws: `NOT_FOUND` for another project outside development mode or a database that does not exist,
    ///   `INVALID_ARGUMENT` for an ID Firestore would refuse, `RESOURCE_EXHAUSTED` past the limit per project.
    func database(_ name: DatabaseName, creating: Bool) throws(HearthError) -> DatabaseServer {
        guard configuration.devMode || name.project == configuration.projectID else {
            throw .notFound(
                "Project \"\(name.project)\" is not served here; this server serves project \"\(configuration.projectID)\"."
            )
        }
        if name.database == "(default)" { return defaultDatabase }
        return try named.withLock { (named: inout [String: OpenNamed]) throws(HearthError) -> DatabaseServer in
            if let open = named[name.database] { return open.server }
            guard DatabaseServer.isValidNamedID(name.database) else {
                throw .invalidArgument(
                    "Invalid database ID \"\(name.database.prefix(100))\": 4 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen, or (default)."
                )
            }
            let directory = Self.directory(ofNamed: name.database, in: configuration.dataDirectory)
            // On PostgreSQL the store says, not a directory: one left from before another node dropped the database
            // must not open it again (its migrations would make it anew).
            var exists = !isPostgres && FileManager.default.fileExists(atPath: directory)
            if !exists, !creating { exists = try existsInStore(name.database) }
            guard creating || exists else {
                throw .notFound("The database \(name.database) does not exist for project \(name.project).")
            }
            guard named.count < configuration.maxDatabasesPerProject else {
                throw HearthError(
                    .resourceExhausted,
                    "Project \(name.project) has \(configuration.maxDatabasesPerProject) databases open, the most one project may have."
                )
            }
            let database = try openNamed(name.database, directory: directory)
            named[name.database] = OpenNamed(server: database, incarnation: incarnation(of: name.database))
            return database
        }
    }

    /// Closes the named database `name` (its listeners end) and removes its directory.
    /// - Throws: `NOT_FOUND` when it does not exist, `FAILED_PRECONDITION` for `(default)`.
    func deleteNamedDatabase(_ name: DatabaseName) throws(HearthError) {
        guard name.database != DatabaseName.defaultDatabase else {
            throw .failedPrecondition("The (default) database cannot be deleted.")
        }
        let database = try database(name, creating: false)
        named.withLock { _ = $0.removeValue(forKey: name.database) }
        database.stop()
        if case .postgres(let conninfo) = configuration.store {
            try PostgresNamedDatabases.drop(name.database, conninfo: conninfo)
        }
        let directory = Self.directory(ofNamed: name.database, in: configuration.dataDirectory)
        do {
            // On PostgreSQL another node may have made the database: this node may have no directory for it.
            if FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.removeItem(atPath: directory)
            }
        } catch {
            throw HearthError(.internal, "Cannot remove database \(name.database): \(error.localizedDescription)")
        }
        context.logger.info(
            "deleted a named database", ["project": .string(name.project), "database": .string(name.database)])
    }

    /// The named databases that exist (on disk; on PostgreSQL, in the store) or are open, sorted.
    func namedDatabaseIDs() -> [String] {
        let directory = (configuration.dataDirectory as NSString).appendingPathComponent(DatabaseServer.namedDirectory)
        let onDisk = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let open = named.withLock { Array($0.keys) }
        guard case .postgres(let conninfo) = configuration.store else {
            return Set(onDisk.filter(DatabaseServer.isValidNamedID) + open).sorted()
        }
        // The store lists them (a directory may be left from before another node dropped one); without it
        // (PostgreSQL unreachable) the listing still has what this node has open.
        let inStore = (try? PostgresNamedDatabases.ids(conninfo: conninfo)) ?? []
        return Set(open + inStore).sorted()
    }

    /// Whether the project's databases are on PostgreSQL, shared with other nodes.
    private var isPostgres: Bool {
        if case .postgres = configuration.store { return true }
        return false
    }

    /// The incarnation of the named database `id` in PostgreSQL; `nil` on SQLite or when it cannot be read.
    private func incarnation(of id: String) -> Int64? {
        guard case .postgres(let conninfo) = configuration.store else { return nil }
        return try? PostgresNamedDatabases.incarnation(id, conninfo: conninfo)
    }

    /// Closes every open named database that PostgreSQL no longer holds in the incarnation it was opened on —
    /// another node deleted it, and maybe made it again — as ``deleteNamedDatabase(_:)`` closes it on the node that
    /// deletes: its listeners end alike, its directory is removed, and the next request answers as that node would
    /// (`NOT_FOUND`, or the new, empty database). A database whose incarnation cannot be read now is looked at again
    /// at the next announcement or reconnection.
    private func closeDroppedDatabases() {
        guard case .postgres(let conninfo) = configuration.store else { return }
        let open = named.withLock { $0.mapValues(\.incarnation) }
        for (id, opened) in open {
            let current: Int64?
            do {
                current = try PostgresNamedDatabases.incarnation(id, conninfo: conninfo)
            } catch {
                continue
            }
            if let current, opened == nil || opened == current {
                named.withLock { $0[id]?.incarnation = current }
                continue
            }
            // Under the lock, so that no request opens it again before its directory is gone.
            let closed = named.withLock { named -> Bool in
                guard let entry = named[id], entry.incarnation == opened else { return false }
                named.removeValue(forKey: id)
                entry.server.stop()
                try? FileManager.default.removeItem(
                    atPath: Self.directory(ofNamed: id, in: configuration.dataDirectory))
                return true
            }
            if closed {
                context.logger.info(
                    "closed a named database another node deleted",
                    ["project": .string(configuration.projectID), "database": .string(id)])
            }
        }
    }

    /// Whether the store holds the named database `id` though this node has no directory for it: on PostgreSQL,
    /// another node made it (SQLite keeps every database in the data directory).
    private func existsInStore(_ id: String) throws(HearthError) -> Bool {
        guard case .postgres(let conninfo) = configuration.store else { return false }
        return try PostgresNamedDatabases.exists(id, conninfo: conninfo)
    }

    /// `DIR/databases/{id}`.
    static func directory(ofNamed id: String, in dataDirectory: String) -> String {
        ((dataDirectory as NSString).appendingPathComponent(DatabaseServer.namedDirectory) as NSString)
            .appendingPathComponent(id)
    }

    private func openNamed(_ id: String, directory: String) throws(HearthError) -> DatabaseServer {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw HearthError(.internal, "Cannot make the directory of database \(id): \(error.localizedDescription)")
        }
        var indexes = configuration
        indexes.indexesFile = nil
        indexes.dataDirectory = directory
        let engine = try DatabaseServer.openEngine(
            id: id, directory: directory, declaredIndexes: try HearthApplication.indexDefinitions(indexes),
            configuration: configuration, logger: context.logger, clock: context.clock)
        let database = DatabaseServer(id: id, engine: engine, project: context)
        do throws(HearthError) {
            try database.start()
        } catch {
            database.stop()
            throw error
        }
        context.logger.info(
            "opened a named database", ["project": .string(configuration.projectID), "database": .string(id)])
        return database
    }
}
