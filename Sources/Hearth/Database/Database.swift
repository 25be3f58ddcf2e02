public import Foundation
import HearthCore
import Synchronization

/// The JSON tree of one app — Hearth's `Database` (Realtime Database).
///
/// It speaks the tree's REST protocol: reads, writes, pushes, multi-path updates, queries and ETag transactions, and
/// live observers over SSE (`observe(_:with:)`). Writes go through a queue: they are applied locally at once
/// (observers fire before the server has them) and sent in order, also after the server was unreachable; with
/// ``isPersistenceEnabled`` the queue and a cache of the data read are kept on disk and survive an app restart. See
/// docs/sdk.md, "When a tree write completes".
public final class Database: Sendable {
    /// The app this database belongs to.
    public let app: HearthApp
    private let persistence = Atomic<Bool>(false)
    let pushIDs = Mutex(PushIDGenerator())
    let observers = ObserverRegistry()
    /// The observers ``DatabaseQuery/keepSynced(_:)`` holds open, by location and query.
    let syncedHandles = Mutex<[String: UInt]>([:])
    /// The cache and write queue, made on first use (see ``local``).
    let localState = Mutex<TreeLocal?>(nil)

    init(app: HearthApp) { self.app = app }

    /// The default app's database. Call ``HearthApp/configure(options:)`` first.
    public static func database() -> Database { HearthApp.requireDefault.database }

    /// The database of `app`.
    public static func database(app: HearthApp) -> Database { app.database }

    /// Points this app at a server on `host:port` over HTTP, as with the Realtime Database emulator.
    public func useEmulator(withHost host: String, port: Int) { app.useHost(host, port: port) }

    /// Whether data is kept on disk for offline use, as in Firebase: the values of locations read or observed, and
    /// the queue of writes not yet acknowledged, in `database-<app>.<project>.sqlite` in the app's storage directory,
    /// so both survive an app restart. Off (the default), both are kept in memory for the life of the process:
    /// writes made offline are still applied locally and sent when the server is back. Set it before the first read,
    /// write or observer of this database; later changes have no effect.
    public var isPersistenceEnabled: Bool {
        get { persistence.load(ordering: .relaxed) }
        set { persistence.store(newValue, ordering: .relaxed) }
    }

    /// Stops sending queued writes until ``goOnline()``: writes keep being applied locally and queued (live
    /// observers keep their streams).
    public func goOffline() { local.queue.setOnline(false) }

    /// Sends queued writes again after ``goOffline()``.
    public func goOnline() { local.queue.setOnline(true) }

    /// The queue observers and completion blocks run on: the main queue by default, as in Firebase. Set a serial
    /// queue, so events run one at a time in the order they were raised; set it before adding observers. `async`
    /// forms resume wherever Swift resumes them.
    public var callbackQueue: DispatchQueue {
        get { observers.callbacks.current }
        set { observers.callbacks.current = newValue }
    }

    /// The root of the tree.
    public func reference() -> DatabaseReference { DatabaseReference(self, []) }

    /// The node at a slash-separated path.
    public func reference(withPath path: String) -> DatabaseReference {
        DatabaseReference(self, path.split(separator: "/").map(String.init))
    }

    /// A new push key: 20 characters, ordered by creation time, as Firebase makes them.
    func nextPushID() -> String {
        let millis = Int64(Date().timeIntervalSince1970 * 1000)
        var generator = SystemRandomNumberGenerator()
        return pushIDs.withLock { $0.next(nowMillis: millis) { UInt8.random(in: 0...63, using: &generator) } }
    }

    /// Sends a REST request for `path.json` and returns the parsed body.
    func send(
        _ method: String, path: [String], query: [(String, String)] = [], body: JSONValue? = nil,
        headers extra: [String: String] = [:]
    ) async throws -> (JSONValue, TransportResponse) {
        var text = app.serverURL.absoluteString.trimmingSuffix("/")
        text += path.isEmpty ? "/.json" : "/" + path.map(DocumentsClient.escape).joined(separator: "/") + ".json"
        var items = query
        do {
            if let token = try await app.auth.idTokenForRequest() { items.append(("auth", token)) }
        } catch let error as AuthErrorCode where error.code == .networkError {
            throw DatabaseError(.unavailable, "The server could not be reached: \(error.message)")
        }
        if !items.isEmpty {
            text +=
                "?"
                + items.map { "\(DocumentsClient.escape($0.0))=\(DocumentsClient.escape($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw DatabaseError(.invalidArgument, "Cannot form a URL for \(path).")
        }
        var headers = extra
        if body != nil { headers["Content-Type"] = "application/json" }
        let response: TransportResponse
        do {
            response = try await app.transport.send(
                TransportRequest(method: method, url: url, headers: headers, body: body.map { Data($0.serialized()) }))
        } catch {
            throw DatabaseError(.unavailable, "The server could not be reached: \(error.localizedDescription)")
        }
        let json = (try? JSONParser.parse(Array(response.body))) ?? .null
        guard (200..<300).contains(response.status) else {
            if response.status == 412 { throw DatabaseError(.failedPrecondition, "The value changed (ETag mismatch).") }
            let message =
                json["error"]?.stringValue ?? json["error"]?["message"]?.stringValue ?? "HTTP \(response.status)"
            let code: FirestoreErrorCode.Code =
                switch response.status {
                case 401, 403: .permissionDenied
                case 400: .invalidArgument
                case 503: .unavailable
                default: .unknown
                }
            throw DatabaseError(code, message)
        }
        return (json, response)
    }
}

/// A tree database error; codes are the canonical set shared with Firestore.
public typealias DatabaseError = FirestoreErrorCode

/// Placeholders the server resolves when it writes — Hearth's `ServerValue`.
public enum ServerValue {
    /// The server's time in milliseconds since 1970.
    public static func timestamp() -> [String: Any] { [".sv": "timestamp"] }
    /// Adds `delta` to the stored number (0 when absent).
    public static func increment(_ delta: NSNumber) -> [String: Any] {
        let type = String(cString: delta.objCType)
        let value: Any = type == "f" || type == "d" ? delta.doubleValue : delta.int64Value
        return [".sv": ["increment": value]]
    }
}
