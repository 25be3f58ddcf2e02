import Foundation
import HearthCore
import HearthHTTP
import HearthListen
import HearthLog
import HearthStore
import HearthStoreSQLite

/// One Firestore database of one project — `(default)` or a named one — and what serves it: its own SQLite file
/// (so one database's writes never wait for another's writer, and a database is removed by removing its directory),
/// its listen hub, and the document, index and wipe APIs bound to it. The accounts and rules it judges callers by
/// are its project's.
final class DatabaseServer: Sendable {
    /// The database's ID (`(default)`, or a named database's).
    let id: String
    let store: SQLiteDocumentStore
    let listenHub: ListenHub
    let access: DocumentAccess
    let documents: DocumentsAPI
    let indexes: IndexesAPI
    let wipe: EmulatorWipeAPI

    /// Where a named database's files live inside its project's data directory: `databases/{id}`.
    static let namedDirectory = DataDirectoryLayout.databases

    /// Opens the store of a database in `directory`, with the server's store settings.
    static func openStore(
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
            logger.log(
                .info,
                "development mode: a query needed a composite index; answered by scanning, now building the index (production needs it declared; `hearth indexes` prints them all)",
                [
                    "index": .string(definition.description), "project": .string(configuration.projectID),
                    "database": .string(id),
                ])
        }
        return try SQLiteDocumentStore(configuration: storeConfiguration)
    }

    /// Wires the APIs of the database `id` on its opened `store`; call ``start()`` before serving.
    init(id: String, store: SQLiteDocumentStore, project: ProjectContext) {
        let configuration = project.configuration
        self.id = id
        self.store = store
        access = DocumentAccess(
            engine: project.rules, authenticator: project.authenticator, store: store, databaseID: id,
            clock: project.clock)
        listenHub = ListenHub(
            source: DocumentStoreListenSource(store: store),
            configuration: HearthApplication.listenConfiguration(configuration),
            authorizer: ListenAccess(access: access), clock: project.clock)
        documents = DocumentsAPI(
            store: store, configuration: configuration, databaseID: id,
            listen: ListenEndpoint(
                hub: listenHub, authenticator: project.authenticator, settings: configuration.listen),
            access: access, readWorkers: project.readWorkers, clock: project.clock)
        indexes = IndexesAPI(store: store, configuration: configuration, authenticator: project.authenticator)
        wipe = EmulatorWipeAPI(store: store, configuration: configuration)
    }

    /// Starts the listen hub's thread.
    func start() throws(HearthError) {
        try listenHub.start()
    }

    /// Ends every listener, then closes the store.
    func stop() {
        listenHub.stop()
        store.close()
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
