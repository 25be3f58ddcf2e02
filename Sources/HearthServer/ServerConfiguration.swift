import Foundation
public import HearthHTTP
public import HearthLog
public import HearthStore

/// Everything `hearth serve` can be told; set from flags, then `HEARTH_*` environment variables, then a
/// config file (see `HearthCLI`).
public struct ServerConfiguration: Sendable, Equatable {
    /// The IPv4 address to bind.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one.
    public var port: Int = 8080
    /// The data directory.
    public var dataDirectory: String = "./hearth-data"
    /// The default project ID.
    public var projectID: String = "demo"
    /// More projects served beside `projectID` outside development mode (`--project demo,shop`), each from
    /// `projects/{id}` in the data directory, as development mode keeps every project it is asked for.
    public var additionalProjects: [String] = []
    /// Whether `id` can be served as a project of its own: 1 to 100 ASCII letters, digits, `-`, `_` and `.`, not
    /// starting with `.` (it names a directory).
    public static func isServableProjectID(_ id: String) -> Bool { ProjectRegistry.isDirectoryName(id) }
    /// Development mode: any project ID is accepted, emulator endpoints are on.
    public var devMode: Bool = false
    /// The document rules file, if any (enforced once rules land).
    public var rulesFile: String?
    /// The tree rules file, if any.
    public var databaseRulesFile: String?
    /// The storage rules file, if any (`service firebase.storage`).
    public var storageRulesFile: String?
    /// The lowest log level written.
    public var logLevel: Logger.Level = .info
    /// HTTP worker threads.
    public var threads: Int = 2
    /// The most client connections open at once (`--max-connections`).
    public var maxConnections: Int = 16384
    /// The most client connections open at once from one address (`--max-connections-per-address`); 0: no limit.
    public var maxConnectionsPerAddress: Int = 256
    /// The proxies whose `X-Forwarded-For` (gRPC: `x-forwarded-for` metadata) names the client every per-address
    /// limit counts (`--trusted-proxies`); none by default, so every request is its TCP peer's.
    public var trustedProxies: TrustedProxies = .none
    /// Threads that run reads whose cost grows with the data (queries, `batchGet`, listings), beside the HTTP
    /// threads; more than that many such reads at once wait their turn.
    public var readWorkers: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// The most document names one `batchGet` may ask for.
    public var maxBatchGetDocuments: Int = 10_000
    /// The most bytes of documents one read may answer (a query, a `batchGet`, a page of a listing), in the stored
    /// encoding; past it the read fails with `RESOURCE_EXHAUSTED` instead of building an answer of any size in memory
    /// (`--max-result-bytes`).
    public var maxResultBytes: Int = 64 * 1024 * 1024
    /// The largest request body accepted, in bytes (Firestore's 10 MiB).
    public var maxBodyBytes: Int = 10 * 1024 * 1024
    /// The composite index definitions file (`firestore.indexes.json` format); `nil` reads
    /// `hearth.indexes.json` in the data directory when it exists.
    public var indexesFile: String?
    /// The browser origins (`https://app.example.com`, or `*`) whose pages may call the APIs; development mode
    /// allows any.
    public var corsOrigins: [String] = []
    /// Accounts: admin key, mail, links, limits (see `AccountsSettings`).
    public var accounts = AccountsSettings()
    /// Live listeners: heartbeat interval, per-stream buffer (see `ListenSettings`).
    public var listen = ListenSettings()
    /// File storage: the maximum object size (see `StorageSettings`).
    public var storage = StorageSettings()

    /// The most projects development mode opens at once, the configured one included (each is a database file with
    /// its writer, readers and listeners).
    public var maxDevProjects: Int = 64
    /// The most named Firestore databases one project may have open (Firestore's limit per project).
    public var maxDatabasesPerProject: Int = 100
    /// Where documents, the tree and accounts live: SQLite in the data directory, or a shared PostgreSQL database.
    public var store: StoreLocation = .sqlite
    /// Holds every database's index builds between steps (tests that look at a build half done); `nil`, as in
    /// production, builds without waiting.
    public var indexBuildGate: IndexBuildGate?

    /// The defaults.
    public init() {}
}
