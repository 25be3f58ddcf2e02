import Foundation
import HearthCore
import Synchronization

/// The live observers of one database: each is a task reading one SSE stream of the tree protocol.
final class ObserverRegistry: Sendable {
    private let observers = Mutex<[UInt: (path: [String], task: Task<Void, Never>)]>([:])
    private let nextHandle = Mutex<UInt>(1)

    func add(path: [String], _ start: (UInt) -> Task<Void, Never>) -> UInt {
        let handle = nextHandle.withLock { next in
            defer { next += 1 }
            return next
        }
        let task = start(handle)
        observers.withLock { $0[handle] = (path, task) }
        return handle
    }

    func remove(_ handle: UInt) {
        observers.withLock { $0.removeValue(forKey: handle) }?.task.cancel()
    }

    func removeAll(at path: [String]) {
        let removed = observers.withLock { observers in
            let handles = observers.filter { $0.value.path == path }.map(\.key)
            return handles.compactMap { observers.removeValue(forKey: $0)?.task }
        }
        for task in removed { task.cancel() }
    }
}

/// Applies the tree protocol's `put`/`patch` events (`{"path":"/a/b","data":…}`) to a local copy.
enum TreeApplier {
    static func set(_ tree: JSONValue, at path: ArraySlice<String>, to value: JSONValue) -> JSONValue {
        guard let key = path.first else { return value }
        var members = tree.objectValue ?? [:]
        let child = set(members[key] ?? .null, at: path.dropFirst(), to: value)
        members[key] = child == .null ? nil : child
        return members.isEmpty ? .null : .object(members)
    }

    static func apply(event: String, json: JSONValue, to tree: JSONValue) -> JSONValue? {
        guard let pathText = json["path"]?.stringValue else { return nil }
        let path = pathText.split(separator: "/").map(String.init)
        let data = json["data"] ?? .null
        switch event {
        case "put":
            return set(tree, at: path[...], to: data)
        case "patch":
            var result = tree
            for (key, value) in data.objectValue ?? [:] {
                result = set(result, at: (path + key.split(separator: "/").map(String.init))[...], to: value)
            }
            return result
        default:
            return nil
        }
    }
}

extension DatabaseQuery {
    /// Calls `block` for `eventType` now and on every change, over a live SSE stream of this location (or query
    /// window); `.value` gives the whole value, `.childAdded`/`.childChanged`/`.childRemoved` one child each.
    /// `.childMoved` is not reported yet. Callbacks arrive on a background executor.
    /// - Returns: a handle for ``removeObserver(withHandle:)``.
    @discardableResult
    public func observe(_ eventType: DataEventType, with block: @escaping @Sendable (DataSnapshot) -> Void) -> UInt {
        let database = self.database
        let path = self.path
        let order = self.order ?? .key
        var query = parameters
        if let order = self.order { query.insert(("orderBy", order.parameter), at: 0) }
        let reference = ref
        let parameters = query
        return database.observers.add(path: path) { _ in
            Task {
                var failures = 0
                var tree: JSONValue? = nil
                while !Task.isCancelled {
                    do {
                        let stream = try await database.openStream(path: path, query: parameters)
                        var parser = SSEParser()
                        for try await chunk in stream {
                            for event in parser.feed(chunk) {
                                if event.event == "cancel" { return }
                                guard let json = try? JSONParser.parse(event.data),
                                    let next = TreeApplier.apply(event: event.event, json: json, to: tree ?? .null)
                                else { continue }
                                failures = 0
                                let previous = tree
                                tree = next
                                Self.fire(
                                    eventType, old: previous, new: next, reference: reference, order: order, block)
                            }
                        }
                    } catch {
                        failures += 1
                    }
                    try? await Task.sleep(for: .milliseconds(min(5_000, 100 << min(failures, 6))))
                }
            }
        }
    }

    private static func fire(
        _ type: DataEventType, old: JSONValue?, new: JSONValue, reference: DatabaseReference, order: TreeOrder,
        _ block: @Sendable (DataSnapshot) -> Void
    ) {
        let snapshot = DataSnapshot(reference: reference, json: new, order: order)
        switch type {
        case .value:
            if old != new { block(snapshot) }
        case .childAdded, .childChanged, .childRemoved:
            let before = old?.objectValue ?? [:]
            let after = new.objectValue ?? [:]
            if type == .childRemoved {
                let gone = DataSnapshot(reference: reference, json: old ?? .null, order: order).children
                for child in gone where after[child.key ?? ""] == nil { block(child) }
                return
            }
            for child in snapshot.children {
                let key = child.key ?? ""
                if type == .childAdded && before[key] == nil { block(child) }
                if type == .childChanged, let previous = before[key], previous != after[key] { block(child) }
            }
        case .childMoved:
            break
        }
    }

    /// Stops one observer.
    public func removeObserver(withHandle handle: UInt) { database.observers.remove(handle) }

    /// Stops every observer at this location.
    public func removeAllObservers() { database.observers.removeAll(at: path) }

    /// Keeps this location's data synchronised. Accepted for source compatibility; without an offline cache it has
    /// no effect yet.
    public func keepSynced(_ keepSynced: Bool) {}
}

extension Database {
    /// Opens the SSE stream of a location (`Accept: text/event-stream`), with the ID token as `auth`.
    func openStream(path: [String], query: [(String, String)]) async throws -> AsyncThrowingStream<Data, any Error> {
        var text = app.serverURL.absoluteString.trimmingSuffix("/")
        text += path.isEmpty ? "/.json" : "/" + path.map(DocumentsClient.escape).joined(separator: "/") + ".json"
        var items = query
        if let token = try await app.auth.idTokenForRequest() { items.append(("auth", token)) }
        if !items.isEmpty {
            text +=
                "?"
                + items.map { "\(DocumentsClient.escape($0.0))=\(DocumentsClient.escape($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw DatabaseError(.invalidArgument, "Cannot form a URL for \(path).")
        }
        return try await app.transport.stream(
            TransportRequest(method: "GET", url: url, headers: ["Accept": "text/event-stream"]))
    }
}
