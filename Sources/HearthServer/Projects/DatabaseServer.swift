import Foundation
import HearthCore
import HearthHTTP
import HearthListen
import HearthLog
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite

/// One Firestore database of one project — `(default)` or a named one — and what serves it: its own SQLite file
/// (so one database's writes never wait for another's writer, and a database is removed by removing its directory),
/// its listen hub, and the document, index and wipe APIs bound to it. The accounts and rules it judges callers by
/// are its project's.
final class DatabaseServer: Sendable {
    /// The database's ID (`(default)`, or a named database's).
    let id: String
    /// The engine the database is on.
    let engine: DatabaseEngine
    /// Its documents.
    var store: any DocumentStore { engine.documents }
    let listenHub: ListenHub
    /// How another node's POST reaches this node's listen sessions (several nodes on PostgreSQL); `nil` on SQLite.
    let relay: (any NodeRelay)?
    let access: DocumentAccess
    let documents: DocumentsAPI
    let indexes: IndexesAPI
    let wipe: EmulatorWipeAPI

    /// Where a named database's files live inside its project's data directory: `databases/{id}`.
    static let namedDirectory = DataDirectoryLayout.databases

    /// Opens the engine of a database: its SQLite file in `directory`, or the configured PostgreSQL database,
    /// with the server's store settings.
    static func openEngine(
        id: String, directory: String, declaredIndexes: [IndexDefinition], configuration: ServerConfiguration,
        logger: Logger, clock: WallClock
    ) throws(HearthError) -> DatabaseEngine {
        if case .postgres(let conninfo) = configuration.store {
            var scoped = conninfo
            // A named database keeps its tables in a schema of its own beside (default)'s (PostgresNamedDatabases).
            if id != DatabaseName.defaultDatabase {
                try PostgresNamedDatabases.create(id, conninfo: conninfo)
                scoped = try PostgresNamedDatabases.conninfo(conninfo, database: id)
            }
            var settings = PostgresDocumentStore.Configuration(conninfo: scoped)
            settings.clock = clock
            settings.idleReadConnections = configuration.threads + configuration.readWorkers
            settings.indexes = declaredIndexes
            settings.maxResultBytes = configuration.maxResultBytes
            settings.learnsIndexes = configuration.devMode
            settings.onIndexLearned = { definition in logLearned(definition, database: id, configuration, logger) }
            // Locked first, so a second server on the directory is refused before it touches PostgreSQL.
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .internal("Cannot create the data directory \(directory): \(error.localizedDescription)")
            }
            let lock = try DataDirectoryLock(directory: directory)
            return .postgres(try PostgresDocumentStore(configuration: settings), directoryLock: lock)
        }
        return .sqlite(
            try openSQLite(
                id: id, directory: directory, declaredIndexes: declaredIndexes, configuration: configuration,
                logger: logger, clock: clock))
    }

    /// Opens the SQLite store of a database in `directory`.
    private static func openSQLite(
        id: String, directory: String, declaredIndexes: [IndexDefinition], configuration: ServerConfiguration,
        logger: Logger, clock: WallClock
    ) throws(HearthError) -> SQLiteDocumentStore {
        var storeConfiguration = SQLiteDocumentStore.Configuration(directory: directory)
        // A read connection for each thread that reads: the HTTP threads (point reads) and the read workers.
        // Plus four for the accounts' token checks, which kept a pool of their own before they shared the database.
        storeConfiguration.readers = configuration.threads + configuration.readWorkers + 4
        storeConfiguration.maxResultBytes = configuration.maxResultBytes
        storeConfiguration.logger = logger
        storeConfiguration.clock = clock
        storeConfiguration.indexes = declaredIndexes
        storeConfiguration.indexBuildGate = configuration.indexBuildGate
        // The emulator answers every valid query; in development mode so does Hearth, learning the indexes.
        storeConfiguration.learnsIndexes = configuration.devMode
        storeConfiguration.onIndexLearned = { definition in
            logLearned(definition, database: id, configuration, logger)
        }
        return try SQLiteDocumentStore(configuration: storeConfiguration)
    }

    /// The log line of an index development mode learned, on either engine.
    private static func logLearned(
        _ definition: IndexDefinition, database id: String, _ configuration: ServerConfiguration, _ logger: Logger
    ) {
        logger.log(
            .info,
            "development mode: a query needed a composite index; answered by scanning, now building the index (production needs it declared; `hearth indexes` prints them all)",
            [
                "index": .string(definition.description), "project": .string(configuration.projectID),
                "database": .string(id),
            ])
    }

    /// Wires the APIs of the database `id` on its opened `store`; call ``start()`` before serving.
    init(id: String, engine: DatabaseEngine, project: ProjectContext) {
        let configuration = project.configuration
        self.id = id
        self.engine = engine
        let store = engine.documents
        access = DocumentAccess(
            engine: project.rules, authenticator: project.authenticator, store: store, databaseID: id,
            clock: project.clock)
        let relay = engine.nodeRelay()
        self.relay = relay
        listenHub = ListenHub(
            source: DocumentStoreListenSource(store: store),
            configuration: HearthApplication.listenConfiguration(configuration),
            authorizer: ListenAccess(access: access), clock: project.clock,
            sessionPrefix: relay.map { $0.nodeID + "." } ?? "")
        documents = DocumentsAPI(
            store: store, configuration: configuration, databaseID: id,
            listen: ListenEndpoint(
                hub: listenHub, authenticator: project.authenticator, settings: configuration.listen, relay: relay),
            access: access, readWorkers: project.readWorkers, clock: project.clock)
        indexes = IndexesAPI(store: store, configuration: configuration, authenticator: project.authenticator)
        wipe = EmulatorWipeAPI(store: store, configuration: configuration)
    }

    /// Starts the listen hub's thread, then answers listen requests other nodes relay here.
    func start() throws(HearthError) {
        try listenHub.start()
        if let relay, let listen = documents.listen {
            relay.serve { message in listen.answer(relayed: message) }
        }
    }

    /// Stops answering relayed requests, ends every listener, then closes the store.
    func stop() {
        relay?.stop()
        listenHub.stop()
        engine.close()
    }

    /// Whether `id` can name a named database: Firestore's rule (4 to 63 lowercase letters, digits and hyphens,
    /// starting with a letter and not ending with a hyphen), which also keeps it a safe directory name.
    static func isValidNamedID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (4...63).contains(bytes.count), let first = bytes.first, let last = bytes.last else { return false }
        guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), last != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
    }
}
