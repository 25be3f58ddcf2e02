import Foundation
import HearthCore
import Synchronization

/// The live observers of one database. Observers of the same location and query share one SSE stream and its local
/// copy of the data: the tree protocol streams one location (and query window) per request, so streams cannot be
/// multiplexed across locations (DESIGN.md §3.4), but a second observer of a location costs no new connection and gets
/// its first events at once from the shared copy.
final class ObserverRegistry: Sendable {
    /// One observer: what it asked for and where to deliver it.
    struct Observer: Sendable {
        var type: DataEventType
        var block: @Sendable (DataSnapshot) -> Void
    }

    /// One stream: its key (path + query), observers, and the data as last received.
    private struct Stream {
        var path: [String]
        var observers: [UInt: Observer] = [:]
        var tree: JSONValue?
        var task: Task<Void, Never>?
    }

    private struct State {
        var streams: [String: Stream] = [:]
        var streamOfHandle: [UInt: String] = [:]
        var nextHandle: UInt = 1
    }

    private let state = Mutex(State())

    /// Adds an observer to the stream `key`, starting it with `start` when it is the first. When the stream already
    /// has data, the observer's first events are computed from it before this returns.
    func add(
        key: String, path: [String], observer: Observer, reference: DatabaseReference, order: TreeOrder,
        start: (String) -> Task<Void, Never>
    ) -> UInt {
        let (handle, tree, isNew) = state.withLock { state -> (UInt, JSONValue?, Bool) in
            let handle = state.nextHandle
            state.nextHandle += 1
            state.streamOfHandle[handle] = key
            let isNew = state.streams[key] == nil
            if isNew { state.streams[key] = Stream(path: path) }
            state.streams[key]?.observers[handle] = observer
            return (handle, state.streams[key]?.tree, isNew)
        }
        if isNew {
            let task = start(key)
            let stale = state.withLock { state in
                guard state.streams[key] != nil else { return true }
                state.streams[key]?.task = task
                return false
            }
            if stale { task.cancel() }
        } else if let tree {
            DatabaseQuery.fire(observer, old: nil, new: tree, reference: reference, order: order)
        }
        return handle
    }

    /// Records the stream's new data and returns the observers to tell (empty when the stream is gone).
    func received(_ tree: JSONValue, on key: String) -> (old: JSONValue?, observers: [Observer])? {
        state.withLock { state in
            guard let stream = state.streams[key] else { return nil }
            state.streams[key]?.tree = tree
            return (stream.tree, stream.observers.keys.sorted().compactMap { stream.observers[$0] })
        }
    }

    func remove(_ handle: UInt) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard let key = state.streamOfHandle.removeValue(forKey: handle) else { return nil }
            state.streams[key]?.observers[handle] = nil
            guard state.streams[key]?.observers.isEmpty == true else { return nil }
            return state.streams.removeValue(forKey: key)?.task
        }
        task?.cancel()
    }

    func removeAll(at path: [String]) {
        let handles = state.withLock { state in
            state.streamOfHandle.filter { state.streams[$0.value]?.path == path }.map(\.key)
        }
        for handle in handles { remove(handle) }
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
    /// window) that every observer of the same location and query shares. `.value` gives the whole value,
    /// `.childAdded`/`.childChanged`/`.childRemoved` one child each, `.childMoved` a child whose place in the query's
    /// order changed. Callbacks arrive on a background executor.
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
        let key = path.joined(separator: "/") + "?" + parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let observer = ObserverRegistry.Observer(type: eventType, block: block)
        return database.observers.add(
            key: key, path: path, observer: observer, reference: reference, order: order
        ) { key in
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
                                tree = next
                                guard let (old, observers) = database.observers.received(next, on: key) else { return }
                                for observer in observers {
                                    Self.fire(observer, old: old, new: next, reference: reference, order: order)
                                }
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

    /// Tells one observer what changed between `old` (nil before the first data) and `new`.
    static func fire(
        _ observer: ObserverRegistry.Observer, old: JSONValue?, new: JSONValue, reference: DatabaseReference,
        order: TreeOrder
    ) {
        let block = observer.block
        let snapshot = DataSnapshot(reference: reference, json: new, order: order)
        switch observer.type {
        case .value:
            if old != new { block(snapshot) }
        case .childAdded, .childChanged, .childRemoved:
            let before = old?.objectValue ?? [:]
            let after = new.objectValue ?? [:]
            if observer.type == .childRemoved {
                let gone = DataSnapshot(reference: reference, json: old ?? .null, order: order).children
                for child in gone where after[child.key ?? ""] == nil { block(child) }
                return
            }
            for child in snapshot.children {
                let key = child.key ?? ""
                if observer.type == .childAdded && before[key] == nil { block(child) }
                if observer.type == .childChanged, let previous = before[key], previous != after[key] { block(child) }
            }
        case .childMoved:
            // A changed child whose previous sibling (among the children present before and after) is not the same
            // any more moved in the query's order, as Firebase reports it.
            guard let old else { return }
            let before = old.objectValue ?? [:]
            let after = new.objectValue ?? [:]
            let kept = Set(before.keys).intersection(after.keys)
            func previousSiblings(_ json: JSONValue) -> [String: String] {
                let keys = DataSnapshot(reference: reference, json: json, order: order).children.compactMap(\.key)
                    .filter(kept.contains)
                return Dictionary(uniqueKeysWithValues: zip(keys.dropFirst(), keys))
            }
            let was = previousSiblings(old)
            let now = previousSiblings(new)
            for child in snapshot.children {
                guard let key = child.key, kept.contains(key), before[key] != after[key], was[key] != now[key]
                else { continue }
                block(child)
            }
        }
    }

    /// Stops one observer.
    public func removeObserver(withHandle handle: UInt) { database.observers.remove(handle) }

    /// Stops every observer at this location.
    public func removeAllObservers() { database.observers.removeAll(at: path) }

    /// Keeps this location's stream open while `keepSynced` is on, so observers added later share it and get their
    /// first events at once, without a new connection. There is no on-disk tree cache (see
    /// ``Database/isPersistenceEnabled``), so nothing is kept across launches.
    public func keepSynced(_ keepSynced: Bool) {
        let key =
            "\(database.app.name)|" + path.joined(separator: "/") + "|" + parameters.map(\.1).joined(separator: "&")
        database.syncedHandles.withLock { handles in
            if keepSynced, handles[key] == nil {
                handles[key] = observe(.value) { _ in }
            } else if !keepSynced, let handle = handles.removeValue(forKey: key) {
                removeObserver(withHandle: handle)
            }
        }
    }
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
