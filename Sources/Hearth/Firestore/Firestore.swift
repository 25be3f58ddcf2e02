public import Foundation
import HearthCore
import Synchronization

/// The document database of one app — Hearth's `Firestore`.
///
/// Offline-first, as Firebase: a write (`setData`, `updateData`, `delete`, `addDocument`, batches) is stored in a
/// durable queue, shown at once to listeners and cached reads (`hasPendingWrites == true`), and sent in order; its
/// `await` (or completion handler) resumes when the server has acknowledged it. See docs/sdk.md, "When a write
/// completes".
public final class Firestore: Sendable {
    /// The app this database belongs to.
    public let app: HearthApp
    let database: DatabaseName
    let client: DocumentsClient
    /// The live `documents:listen` stream, opened on the first listener.
    let listenConnection: ListenConnection
    /// Documents read so far, for reads while offline and `source: .cache`.
    let cache: LocalDocumentCache
    /// The durable queue of writes not yet acknowledged.
    let writeQueue: WriteQueue
    /// Where listeners and completions run (``FirestoreSettings/dispatchQueue``).
    let callbacks = CallbackQueue()

    init(app: HearthApp, database id: String = DatabaseName.defaultDatabase) {
        self.app = app
        database = DatabaseName(project: app.options.projectID, database: id)
        client = DocumentsClient(app: app, database: database)
        // Each database keeps its own cache and write queue; the default's file keeps the name it always had.
        let kind = id == DatabaseName.defaultDatabase ? "firestore" : "firestore-\(id)"
        cache = LocalDocumentCache(url: app.options.storageFile(kind, app: app.name), database: database)
        listenConnection = ListenConnection(client: client, cache: cache)
        writeQueue = WriteQueue(client: client, cache: cache, listeners: listenConnection)
        // Writes a previous run queued while offline are sent as soon as this database is used again.
        let queue = writeQueue
        Task { await queue.resume() }
    }

    /// The default app's database. Call ``HearthApp/configure(options:)`` first.
    public static func firestore() -> Firestore { HearthApp.requireDefault.firestore }

    /// The database of `app`.
    public static func firestore(app: HearthApp) -> Firestore { app.firestore }

    /// The default app's named database `database` (`"(default)"` is the default one), as Firebase's
    /// `Firestore.firestore(database:)`.
    public static func firestore(database: String) -> Firestore {
        HearthApp.requireDefault.firestore(database: database)
    }

    /// The named database `database` of `app`, as Firebase's `Firestore.firestore(app:database:)`.
    public static func firestore(app: HearthApp, database: String) -> Firestore {
        app.firestore(database: database)
    }

    /// Points this app at a server on `host:port` over HTTP, as with the Firestore emulator.
    public func useEmulator(withHost host: String, port: Int) { app.useHost(host, port: port) }

    /// The instance's settings, as in Firebase: read them, change the copy and assign it back. Only
    /// ``FirestoreSettings/dispatchQueue`` has an effect in Hearth.
    public var settings: FirestoreSettings {
        get { FirestoreSettings(dispatchQueue: callbacks.current) }
        set { callbacks.current = newValue.dispatchQueue }
    }

    /// A collection by slash-separated path (`users` or `users/alice/posts`).
    /// - Precondition: the path names a collection (an odd number of segments).
    public func collection(_ collectionPath: String) -> CollectionReference {
        let path = Self.path(collectionPath)
        precondition(
            path.isCollection, "Invalid collection path \"\(collectionPath)\": it must have an odd number of segments.")
        return CollectionReference(self, path)
    }

    /// A document by slash-separated path (`users/alice`).
    /// - Precondition: the path names a document (an even number of segments).
    public func document(_ documentPath: String) -> DocumentReference {
        let path = Self.path(documentPath)
        precondition(
            path.isDocument, "Invalid document path \"\(documentPath)\": it must have an even number of segments.")
        return DocumentReference(self, path)
    }

    /// A query over every collection with this ID, at any depth.
    public func collectionGroup(_ collectionID: String) -> Query {
        precondition(!collectionID.contains("/"), "A collection group ID must not contain '/'.")
        return Query(self, QueryState(parent: .root, collectionID: collectionID, allDescendants: true))
    }

    /// Shuts this instance down, as Firebase's `terminate()`: listeners stop, nothing more is sent, and writes still
    /// waiting fail with `unavailable` — they stay in the durable queue and are sent by the next instance, which
    /// `Firestore.firestore(app:)` creates from now on. Use it before deleting the app or to simulate a relaunch.
    public func terminate() async {
        await listenConnection.terminate()
        await writeQueue.terminate()
        app.forgetFirestore(self)
    }

    /// Completion-handler form of ``terminate()``.
    public func terminate(completion: (((any Error)?) -> Void)? = nil) {
        callbacks.completeVoid(callbackQueueBound(completion)) { await self.terminate() }
    }

    /// A new write batch.
    public func batch() -> WriteBatch { WriteBatch(self) }

    static func path(_ text: String) -> ResourcePath {
        ResourcePath(segments: text.split(separator: "/").map(String.init))
    }
}

/// How a ``Firestore`` instance behaves — Hearth's `FirestoreSettings`. A class, as in Firebase, so
/// `let settings = db.settings; settings.dispatchQueue = queue; db.settings = settings` reads as it does there.
public final class FirestoreSettings: Sendable {
    private let queue: Mutex<DispatchQueue>

    /// Settings with the defaults: callbacks on the main queue.
    public convenience init() { self.init(dispatchQueue: .main) }

    init(dispatchQueue: DispatchQueue) { queue = Mutex(dispatchQueue) }

    /// The queue snapshot listeners and completion handlers run on: the main queue by default. Use a serial queue,
    /// so callbacks run one at a time in the order they were raised. `async` forms resume wherever Swift resumes
    /// them.
    public var dispatchQueue: DispatchQueue {
        get { queue.withLock { $0 } }
        set { queue.withLock { $0 = newValue } }
    }
}

/// Where a read is served from.
public enum FirestoreSource: Sendable, Hashable {
    /// The server; when it is unreachable, the local cache of documents read before (`isFromCache == true`).
    case `default`
    /// Only the server.
    case server
    /// Only the local cache of documents read before; never the network.
    case cache
}

/// Whether a snapshot's data is waiting for the server — Hearth's `SnapshotMetadata`.
public struct SnapshotMetadata: Sendable, Hashable {
    /// Local writes not yet acknowledged by the server are reflected in the data.
    public let hasPendingWrites: Bool
    /// The data came from the local cache rather than the server.
    public let isFromCache: Bool

    init(hasPendingWrites: Bool = false, isFromCache: Bool = false) {
        self.hasPendingWrites = hasPendingWrites
        self.isFromCache = isFromCache
    }
}
