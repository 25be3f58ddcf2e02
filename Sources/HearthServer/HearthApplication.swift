import Foundation
import HearthAuth
public import HearthCore
package import HearthHTTP
import HearthHTTP2
import HearthListen
public import HearthLog
import HearthStorage
import HearthStore
import HearthStoreSQLite
import Synchronization

/// A running Hearth server: the store, the HTTP server, and their wiring.
public final class HearthApplication: Sendable {
    /// The configuration it runs with.
    public let configuration: ServerConfiguration
    /// Its logger.
    public let logger: Logger
    /// The projects served: the configured one and, in development mode, any other a request names.
    private let projects: ProjectRegistry
    private let http: HTTPServer
    /// The HTTP/2 side of the same port (gRPC's h2c): connections that open with the HTTP/2 preface.
    private let grpc: HTTP2Server
    /// What answers each request; `HearthTesting` calls it without a socket.
    private let responder: HearthResponder
    /// The Firestore gRPC service, on the same projects and databases as the REST API.
    let firestoreGRPC: FirestoreGRPCService
    /// Stored files (`/v0/b/…`): bytes under `DIR/storage`, metadata in its own SQLite database.
    private let files: FileStore
    /// Live tree streams (`GET /….json` with `Accept: text/event-stream`), fed by the tree's change feed.
    let treeHub: TreeListenHub
    /// Turns `Authorization: Bearer …` / `?auth=` into the caller, for the configured project.
    var authenticator: RequestAuthenticator { projects.primary.authenticator }
    /// The security rules in force for the configured project (documents and tree), reloaded on SIGHUP.
    public var rules: RulesEngine { projects.primary.rules }

    /// Opens the data directory and prepares the HTTP server (not yet listening).
    /// - Throws: `HearthError` when the data directory or database cannot be opened.
    /// - Parameter clock: the wall clock every part reads (commit times, `request.time`, token lifetimes, rate
    ///   limits, transaction expiry); tests pass their own.
    public init(configuration: ServerConfiguration, logger: Logger, clock: WallClock = .system) throws(HearthError) {
        self.configuration = configuration
        self.logger = logger
        var httpConfiguration = HTTPServer.Configuration()
        httpConfiguration.host = configuration.host
        httpConfiguration.port = configuration.port
        httpConfiguration.threads = configuration.threads
        httpConfiguration.maxBodyBytes = configuration.maxBodyBytes
        httpConfiguration.connectionLimit = configuration.maxConnections
        httpConfiguration.perAddressConnectionLimit = configuration.maxConnectionsPerAddress
        httpConfiguration.trustedProxies = configuration.trustedProxies
        // libmicrohttpd's own notes (a refused connection, a closed slow request head) are worth an operator's eye.
        let diagnostics = DiagnosticsLog(logger: logger)
        httpConfiguration.diagnosticsHandler = { line in diagnostics.write(line) }
        let metrics = Metrics()
        let connections = OpenConnections()
        let sessions = ConsoleSessions(clock: clock)
        let pools = SharedPools(
            reads: WorkerPool(label: "reads", count: configuration.readWorkers),
            accounts: WorkerPool(label: "accounts", count: max(2, ProcessInfo.processInfo.activeProcessorCount)))
        let boundPort: @Sendable () -> Int = { connections.server.withLock { $0 }?.port ?? configuration.port }
        let open: @Sendable (ServerConfiguration) throws(HearthError) -> ProjectServer = {
            project throws(HearthError) in
            try ProjectServer(
                configuration: project, logger: logger, clock: clock, sessions: sessions, pools: pools,
                boundPort: boundPort)
        }
        let primary = try open(configuration)
        let registry = ProjectRegistry(primary: primary, open: open)
        projects = registry
        firestoreGRPC = FirestoreGRPCService { database, request throws(HearthError) in
            let project = try registry.project(for: request)
            return try project.database(database, creating: project.configuration.devMode).documents
        }
        var grpcConfiguration = HTTP2Server.Configuration()
        grpcConfiguration.diagnosticsHandler = { line in diagnostics.write(line) }
        let grpc = HTTP2Server(
            configuration: grpcConfiguration,
            handler: grpcHandler(
                service: firestoreGRPC, trustedProxies: configuration.trustedProxies, logger: logger))
        self.grpc = grpc
        // One port for both, as Google's emulator: `FIRESTORE_EMULATOR_HOST=host:port` reaches the gRPC side.
        httpConfiguration.http2Connections = { socket in grpc.adopt(socket: socket) }
        let store = primary.defaultDatabase.store
        do {
            files = try Self.openFiles(
                configuration, clock: clock, shared: primary.defaultDatabase.engine.sharedObjects())
        } catch {
            primary.stop()
            throw error
        }
        let storage = StorageAPI(
            store: files, configuration: configuration,
            access: StorageAccess(
                engine: primary.rules, authenticator: primary.authenticator, documents: store, clock: clock))
        let cloudStorage = CloudStorageAPI(storage: storage)
        let treeStore: any TreeStore
        do {
            treeStore = try primary.defaultDatabase.engine.tree()
        } catch {
            files.close()
            primary.stop()
            throw error
        }
        let tree = TreeAPI.make(
            tree: treeStore, rules: primary.rules, configuration: configuration,
            authenticator: primary.authenticator, logger: logger, clock: clock)
        treeHub = tree.hub
        let hubs = (documents: primary.defaultDatabase.listenHub, tree: tree.hub)
        let apis: [any API] = [
            // First: every project-scoped request (accounts, documents, indexes, rules, wipes) of any project.
            ProjectDispatch(registry: projects),
            storage,
            cloudStorage,
            ConsoleAPI(configuration: configuration, authenticator: primary.authenticator),
            OperationsAPI(
                store: store, metrics: metrics, configuration: configuration,
                openConnections: { connections.server.withLock { $0 }?.openConnections ?? 0 },
                listeners: { (hubs.documents.statistics.targets, hubs.tree.count) }),
            // Last: it claims only paths ending in `.json` that no API above served.
            tree,
        ]
        responder = HearthResponder(
            apis: apis, metrics: metrics, logger: logger,
            cors: CORSPolicy(origins: configuration.corsOrigins, devMode: configuration.devMode),
            streamingAPIs: [storage, cloudStorage])
        http = HTTPServer(configuration: httpConfiguration, responder: responder)
        connections.server.withLock { $0 = http }
    }

    /// Starts listening.
    /// - Returns: the port bound.
    @discardableResult
    public func start() throws -> Int {
        // Past a file-size limit (`ulimit -f`) a write then fails with EFBIG, which an upload reports as a full disk
        // and cleans up after, instead of the signal killing the server mid-write.
        signal(SIGXFSZ, SIG_IGN)
        do {
            try projects.primary.start()
            treeHub.start()
            rules.reloadOnHangup()
            try http.start()
        } catch {
            treeHub.stop()
            projects.stop()
            files.close()
            throw error
        }
        logger.info(
            "started",
            [
                "host": .string(configuration.host), "port": .int(http.port),
                "project": .string(configuration.projectID),
                "dev": .bool(configuration.devMode), "threads": .int(configuration.threads),
            ])
        if configuration.devMode {
            logger.warning("development mode: any project ID is accepted and the emulator endpoints are on")
        }
        return http.port
    }

    /// Starts what `start()` starts except the HTTP server, for requests answered in process through
    /// ``reply(to:)`` (HearthTesting's in-process harness). `stop()` stops it as usual.
    package func startInProcess() throws(HearthError) {
        do {
            try projects.primary.start()
            treeHub.start()
        } catch {
            projects.primary.defaultDatabase.listenHub.stop()
            treeHub.stop()
            throw error
        }
    }

    /// The answer to `request` from the same responder the HTTP server calls (routing, CORS, error envelopes, logs),
    /// without a socket. A body the responder streams (uploads) is handed to its sink in one chunk, as the HTTP server
    /// would hand it over in several.
    package func reply(to request: HTTPRequest) -> HTTPReply {
        guard responder.streamsBodies else { return responder.reply(to: request) }
        var head = request
        head.body = []
        switch responder.bodyPlan(for: head) {
        case .buffered:
            return responder.reply(to: request)
        case .reject(let response):
            return .response(response)
        case .streamed(let sink):
            guard request.body.count <= sink.maxBodyBytes else { return sink.complete(.tooLarge, request: head) }
            let accepted = request.body.isEmpty || request.body.withUnsafeBytes { sink.receive($0) }
            return sink.complete(accepted ? .complete(byteCount: request.body.count) : .refused, request: head)
        }
    }

    /// The port bound, after `start()`.
    public var port: Int { http.port }

    /// Stops accepting, lets in-flight requests finish, ends every listener (both hubs' threads), then closes the
    /// database. Idempotent.
    public func stop() {
        // GOAWAY to every HTTP/2 connection while HTTP/1.1 drains, each with the same grace. A thread, not a task:
        // the caller may itself be a task blocked here, and tasks share a few threads.
        let grpcStopped = DispatchSemaphore(value: 0)
        let thread = Thread { [grpc] in
            grpc.shutdownBlocking(grace: .seconds(10))
            grpcStopped.signal()
        }
        thread.name = "hearth-h2-shutdown"
        thread.start()
        http.stop(gracePeriod: .seconds(10))
        grpcStopped.wait()
        treeHub.stop()
        // Every project's listeners, accounts (their queued mail may still write) and databases.
        projects.stop()
        files.close()
        logger.info("stopped")
    }
}

extension HearthApplication {
    /// The hub's settings from `--listen-heartbeat` and `--listen-buffer`.
    static func listenConfiguration(_ configuration: ServerConfiguration) -> ListenConfiguration {
        var listen = ListenConfiguration()
        listen.heartbeatInterval = .milliseconds(Int64((configuration.listen.heartbeatSeconds * 1000).rounded()))
        listen.maxSnapshotBytes = configuration.listen.bufferBytes / 2
        return listen
    }

    /// The file store in `DIR/storage`, with `--storage-max-object-bytes`; with `shared`, its objects are the ones
    /// every node shares and the directory only caches their bytes.
    static func openFiles(
        _ configuration: ServerConfiguration, clock: WallClock = .system, shared: (any SharedObjects)? = nil
    ) throws(HearthError)
        -> FileStore
    {
        var files = FileStore.Configuration(
            directory: (configuration.dataDirectory as NSString).appendingPathComponent("storage"))
        files.maxObjectBytes = configuration.storage.maxObjectBytes
        files.clock = clock
        files.shared = shared
        files.diskReservePath = (configuration.dataDirectory as NSString).appendingPathComponent(
            SQLiteDocumentStore.reserveFileName)
        return try FileStore(configuration: files)
    }

    /// The declared composite indexes: `--indexes FILE`, else `hearth.indexes.json` in the data directory.
    static func indexDefinitions(_ configuration: ServerConfiguration) throws(HearthError) -> [IndexDefinition] {
        let path =
            configuration.indexesFile
            ?? (configuration.dataDirectory as NSString).appendingPathComponent("hearth.indexes.json")
        guard let data = FileManager.default.contents(atPath: path) else {
            if configuration.indexesFile != nil { throw .invalidArgument("Cannot read the index file \(path).") }
            return []
        }
        do {
            return try IndexDefinition.parseFile([UInt8](data))
        } catch {
            throw .invalidArgument("\(path): \(error.message)")
        }
    }
}

/// Breaks the init-order cycle between the responder (which reports open connections) and the HTTP server.
private final class OpenConnections: Sendable {
    let server = Mutex<HTTPServer?>(nil)
}
