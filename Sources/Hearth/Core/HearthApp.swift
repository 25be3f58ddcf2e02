import Foundation
import HearthCore
import Synchronization

/// A configured connection to one Hearth server — Hearth's `FirebaseApp`.
///
/// Configure the default app once at launch with ``configure(options:)``; `Auth.auth()` and
/// `Firestore.firestore()` then use it. Further apps are configured by name and passed explicitly.
public final class HearthApp: Sendable {
    /// The name of the app `Auth.auth()` and `Firestore.firestore()` use.
    public static let defaultName = "__HEARTH_DEFAULT_APP__"

    /// The app's name.
    public let name: String
    /// The options it was configured with.
    public let options: HearthOptions
    /// How requests reach the server.
    let transport: any Transport
    /// The server base URL, which `useEmulator(withHost:port:)` may replace.
    private let baseURL: Mutex<URL>
    /// The lazily created services, one of each per app, as Firebase keeps them.
    private let services = Mutex<Services>(Services())

    private struct Services: ~Copyable {
        var auth: Auth?
        /// By database ID (`(default)` or a named database's).
        var firestores: [String: Firestore] = [:]
        var database: Database?
        var storages: [String: Storage] = [:]
    }

    private static let registry = Mutex<[String: HearthApp]>([:])

    private init(name: String, options: HearthOptions, transport: any Transport) {
        self.name = name
        self.options = options
        self.transport = transport
        self.baseURL = Mutex(options.serverURL)
    }

    /// Configures the default app.
    /// - Parameter options: the server and project.
    public static func configure(options: HearthOptions) {
        configure(name: defaultName, options: options)
    }

    /// Configures an app under a name, replacing an earlier app of that name.
    /// - Parameters:
    ///   - name: the app's name.
    ///   - options: the server and project.
    public static func configure(name: String, options: HearthOptions) {
        configure(name: name, options: options, transport: URLSessionTransport())
    }

    /// Configures an app that sends its requests through `transport` — for tests and custom networking.
    /// - Parameters:
    ///   - name: the app's name.
    ///   - options: the server and project.
    ///   - transport: carries every HTTP request.
    public static func configure(name: String = defaultName, options: HearthOptions, transport: any Transport) {
        let app = HearthApp(name: name, options: options, transport: transport)
        registry.withLock { $0[name] = app }
    }

    /// The default app, or `nil` before ``configure(options:)``.
    public static func app() -> HearthApp? { app(name: defaultName) }

    /// The app configured under `name`, or `nil`.
    /// - Parameter name: the app's name.
    public static func app(name: String) -> HearthApp? { registry.withLock { $0[name] } }

    /// Every configured app by name.
    public static var allApps: [String: HearthApp] { registry.withLock { $0 } }

    /// Removes the app from the registry; services already obtained keep working.
    public func delete() {
        Self.registry.withLock { apps in
            if apps[name] === self { apps[name] = nil }
        }
    }

    /// The default app, or a clear crash when it is missing — what Firebase does, since nothing can work without it.
    static var requireDefault: HearthApp {
        guard let app = app() else {
            fatalError("HearthApp.configure(options:) must be called before using Auth or Firestore.")
        }
        return app
    }

    /// The base URL requests go to.
    var serverURL: URL { baseURL.withLock { $0 } }

    /// Points the app at `host:port` over plain HTTP (`useEmulator(withHost:port:)`).
    func useHost(_ host: String, port: Int) {
        let url = URL(string: "http://\(host):\(port)") ?? options.serverURL
        baseURL.withLock { $0 = url }
    }

    /// The app's `Auth`, created on first use.
    var auth: Auth {
        services.withLock { services in
            if let auth = services.auth { return auth }
            let auth = Auth(app: self)
            services.auth = auth
            return auth
        }
    }

    /// The app's `Firestore` for its `(default)` database, created on first use.
    var firestore: Firestore { firestore(database: DatabaseName.defaultDatabase) }

    /// The app's `Firestore` for the database `database`, created on first use (one per database, as Firebase).
    func firestore(database: String) -> Firestore {
        services.withLock { services in
            if let firestore = services.firestores[database] { return firestore }
            let firestore = Firestore(app: self, database: database)
            services.firestores[database] = firestore
            return firestore
        }
    }

    /// Drops a terminated `Firestore`, so the next use creates a fresh one.
    func forgetFirestore(_ firestore: Firestore) {
        services.withLock { services in
            let id = firestore.database.database
            if services.firestores[id] === firestore { services.firestores[id] = nil }
        }
    }

    /// The app's `Storage` for `bucket`, created on first use.
    func storage(bucket: String) -> Storage {
        services.withLock { services in
            if let storage = services.storages[bucket] { return storage }
            let storage = Storage(app: self, bucket: bucket)
            services.storages[bucket] = storage
            return storage
        }
    }

    /// The app's `Database`, created on first use.
    var database: Database {
        services.withLock { services in
            if let database = services.database { return database }
            let database = Database(app: self)
            services.database = database
            return database
        }
    }
}
