import Foundation
import HearthCore
import Synchronization

/// The live observers of one database. Observers of the same location and query share one SSE stream and its local
/// copy of the data: the tree protocol streams one location (and query window) per request, so streams cannot be
/// multiplexed across locations (DESIGN.md §3.4), but a second observer of a location costs no new connection and gets
/// its first events at once from the shared copy.
///
/// What observers see is the stream's server data with the queued writes applied (``Database/view(at:window:server:)``),
/// so a local write raises them at once, before the server has it, and a location observed while offline is
/// answered from the tree cache. Every change is computed under one lock and its events queued, in the order it was
/// computed, on the database's callback queue (the main queue by default) — never run inside the call that caused
/// them.
final class ObserverRegistry: Sendable {
    /// One observer: what it asked for and where to deliver it.
    struct Observer: Sendable {
        var type: DataEventType
        var block: @Sendable (DataSnapshot) -> Void
    }

    /// How a stream's visible value is computed from its server data (`nil` before the first event): `nil` when
    /// nothing is known yet.
    typealias Viewer = (_ path: [String], _ window: TreeQueryWindow?, _ server: JSONValue?) -> JSONValue?

    /// One stream: its location and query, observers, the server's data and what the observers last saw.
    fileprivate struct Stream {
        var path: [String]
        /// The query's window; `nil` for a plain location.
        var window: TreeQueryWindow?
        var reference: DatabaseReference
        var order: TreeOrder
        var observers: [UInt: Observer] = [:]
        /// The data as the server last sent it; kept while the stream is down.
        var server: JSONValue?
        /// How many events have arrived, and the absolute paths the latest ones wrote, so an acknowledgement can tell
        /// whether the stream changed a location since the write was sent.
        var events = 0
        var recent: [(event: Int, path: [String])] = []
        /// Acknowledged writes shown over the server's data until the stream has caught up with them (see
        /// ``ObserverRegistry/update(acknowledged:marks:view:_:)``).
        var acknowledged: [Acknowledged] = []
        /// What the observers were last shown.
        var shown: JSONValue?
        var task: Task<Void, Never>?

        /// The server's data with the acknowledged values over it.
        var data: JSONValue? {
            server.map { server in
                acknowledged.reduce(server) { TreeLocalView.set($0, at: path, path: $1.path, to: $1.value) }
            }
        }

        /// The server's value at an absolute path inside this stream's location.
        func serverValue(at absolute: [String]) -> JSONValue {
            guard let server, absolute.starts(with: path) else { return .null }
            return TreeLocalView.descend(server, absolute.dropFirst(path.count)) ?? .null
        }
    }

    /// A value the server acknowledged writing, kept in view until the stream shows the server has moved on.
    fileprivate struct Acknowledged {
        var path: [String]
        var value: JSONValue
        /// The write's own event is still to come (no event touched the location while it was in flight): kept until
        /// an event leaves the location holding exactly this value, so older events arriving late cannot undo it.
        /// Otherwise the order is unknown, and the next event at the location replaces it.
        var untilEcho: Bool
        /// The stream's event count when it was acknowledged; kept for at most ``ObserverRegistry/echoWindow``
        /// events after, in case the write's own event never comes (a child outside a query's window).
        var since: Int
    }

    private struct State {
        var streams: [String: Stream] = [:]
        var streamOfHandle: [UInt: String] = [:]
        var nextHandle: UInt = 1
    }

    private let state = Mutex(State())
    /// Where observers are called, one change after another (``Database/callbackQueue``).
    let callbacks = CallbackQueue()

    /// Queues `observer`'s events for a change on the callback queue; an observer removed by then is not called.
    private func deliver(
        _ handle: UInt, _ observer: Observer, old: JSONValue?, new: JSONValue, reference: DatabaseReference,
        order: TreeOrder
    ) {
        callbacks.async { [self] in
            guard state.withLock({ $0.streamOfHandle[handle] != nil }) else { return }
            DatabaseQuery.fire(observer, old: old, new: new, reference: reference, order: order)
        }
    }

    /// Adds an observer to the stream `key`, starting it with `start` when it is the first. An observer of a stream
    /// that already has a value, or of a location the cache or a queued write knows, has its first events queued at
    /// once (they run on the callback queue after this returns).
    func add(
        key: String, path: [String], window: TreeQueryWindow?, observer: Observer, reference: DatabaseReference,
        order: TreeOrder, view: Viewer, start: (String) -> Task<Void, Never>
    ) -> UInt {
        let (handle, isNew) = state.withLock { state -> (UInt, Bool) in
            let handle = state.nextHandle
            state.nextHandle += 1
            state.streamOfHandle[handle] = key
            let isNew = state.streams[key] == nil
            if isNew {
                var stream = Stream(path: path, window: window, reference: reference, order: order)
                stream.shown = view(path, window, nil)
                state.streams[key] = stream
            }
            state.streams[key]?.observers[handle] = observer
            if let stream = state.streams[key], let shown = stream.shown {
                deliver(handle, observer, old: nil, new: shown, reference: stream.reference, order: stream.order)
            }
            return (handle, isNew)
        }
        if isNew {
            let task = start(key)
            let stale = state.withLock { state in
                guard state.streams[key] != nil else { return true }
                state.streams[key]?.task = task
                return false
            }
            if stale { task.cancel() }
        }
        return handle
    }

    /// Applies a `put`/`patch` event to the stream's server data and shows the result. Returns the stream's location
    /// and new server data (for the cache), or `nil` when the stream is gone; `event` other than `put`/`patch` changes
    /// nothing.
    func receive(
        event: String, json: JSONValue, on key: String, view: Viewer
    ) -> (path: [String], isQuery: Bool, server: JSONValue?)? {
        state.withLock { state in
            guard var stream = state.streams[key] else { return nil }
            if let next = TreeApplier.apply(event: event, json: json, to: stream.server ?? .null) {
                stream.server = next
                stream.events += 1
                let written = TreeApplier.paths(event: event, json: json).map { stream.path + $0 }
                for path in written { stream.recent.append((stream.events, path)) }
                let current = stream
                stream.acknowledged.removeAll { entry in
                    guard written.contains(where: { TreeLocalView.related($0, entry.path) }) else {
                        return current.events - entry.since > Self.echoWindow
                    }
                    return !entry.untilEcho || current.serverValue(at: entry.path) == entry.value
                        || current.events - entry.since > Self.echoWindow
                }
                if stream.recent.count > Self.recentLimit { stream.recent.removeFirst(stream.recent.count / 2) }
                show(&stream, view(stream.path, stream.window, stream.data))
                state.streams[key] = stream
            }
            return (stream.path, stream.window != nil, stream.data)
        }
    }

    /// How many events each stream has received, taken when a write is sent.
    func marks() -> [String: Int] { state.withLock { $0.streams.mapValues(\.events) } }

    /// Runs `change` (which changes the queued writes) and shows every stream's new value, in one step, so no
    /// observer sees a moment between. `acknowledged` — what the server said it wrote — goes into a stream's server
    /// data where no event changed that location since `marks` (taken when the write was sent): the server's own
    /// event for the write may come later, and until then the data would lack it — and events of older writes may
    /// still arrive before it. So the acknowledged value is shown over the server's data until the write's own event
    /// (an event leaving that value there) arrives. Where an event did change the location while the write was in
    /// flight (or the stream is newer than the write), the order is unknown, and the value is shown only until the
    /// next event there. A stream still waiting for its first data shows the cache, which holds the acknowledged
    /// value, and keeps it over the snapshot until the write's own event.
    func update(
        acknowledged: [(path: [String], value: JSONValue)] = [], marks: [String: Int] = [:], view: Viewer,
        _ change: () -> Void
    ) {
        state.withLock { state in
            change()
            for key in state.streams.keys {
                guard var stream = state.streams[key] else { continue }
                for set in acknowledged where TreeLocalView.related(set.path, stream.path) {
                    // A stream without data yet gets its first snapshot next, then events in commit order: either
                    // the snapshot holds the write, or the write's own event follows it.
                    let inOrder =
                        stream.server == nil || marks[key].map { !stream.changed(set.path, since: $0) } ?? false
                    guard inOrder || stream.serverValue(at: set.path) != set.value else { continue }
                    stream.acknowledged.append(
                        Acknowledged(path: set.path, value: set.value, untilEcho: inOrder, since: stream.events))
                }
                show(&stream, view(stream.path, stream.window, stream.data))
                state.streams[key] = stream
            }
        }
    }

    /// How many event paths a stream remembers; an acknowledgement older than those treats every location as changed.
    private static let recentLimit = 256
    /// How many events an acknowledged value waits for its own event before the server's data is trusted again.
    fileprivate static let echoWindow = 64

    /// Records what a stream's observers see now and queues their events for the difference.
    private func show(_ stream: inout Stream, _ value: JSONValue?) {
        guard let value, value != stream.shown else { return }
        let old = stream.shown
        stream.shown = value
        for handle in stream.observers.keys.sorted() {
            guard let observer = stream.observers[handle] else { continue }
            deliver(handle, observer, old: old, new: value, reference: stream.reference, order: stream.order)
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

extension ObserverRegistry.Stream {
    /// Whether an event after `mark` wrote at, above or below `path` (always, when the events since are forgotten).
    fileprivate func changed(_ path: [String], since mark: Int) -> Bool {
        guard events > mark else { return false }
        guard let oldest = recent.first, oldest.event <= mark + 1 else { return true }
        return recent.contains { $0.event > mark && TreeLocalView.related($0.path, path) }
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

    /// The paths (relative to the stream's location) a `put` or `patch` event writes.
    static func paths(event: String, json: JSONValue) -> [[String]] {
        guard let pathText = json["path"]?.stringValue else { return [] }
        let path = pathText.split(separator: "/").map(String.init)
        guard event == "patch" else { return [path] }
        return (json["data"]?.objectValue ?? [:]).keys.map { path + $0.split(separator: "/").map(String.init) }
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
    /// order changed. A local write raises the observers at once, before the server has it; while offline, a
    /// location is answered from the tree cache (see ``Database/isPersistenceEnabled``). Callbacks arrive on
    /// ``Database/callbackQueue`` (the main queue by default), never inside the call that caused them: a local
    /// write's events come after the write call returns, and before the server's acknowledgement. The observer
    /// stays until ``removeObserver(withHandle:)`` or ``removeAllObservers()``.
    /// - Returns: a handle for ``removeObserver(withHandle:)``.
    @discardableResult
    public func observe(_ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) -> UInt {
        let block = callbackQueueBound(block)
        let database = self.database
        let path = self.path
        let order = self.order ?? .key
        let parameters = requestParameters
        let key = path.joined(separator: "/") + "?" + parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let observer = ObserverRegistry.Observer(type: eventType, block: block)
        return database.observers.add(
            key: key, path: path, window: TreeQueryWindow(parameters: parameters), observer: observer, reference: ref,
            order: order,
            view: database.viewer
        ) { key in
            Task {
                var failures = 0
                while !Task.isCancelled {
                    do {
                        let stream = try await database.openStream(path: path, query: parameters)
                        var parser = SSEParser()
                        for try await chunk in stream {
                            for event in parser.feed(chunk) {
                                if event.event == "cancel" { return }
                                guard let json = try? JSONParser.parse(event.data) else { continue }
                                failures = 0
                                guard database.received(event.event, json, on: key) else { return }
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

    /// The REST query parameters: `orderBy` first, then the bounds and limits.
    var requestParameters: [(String, String)] {
        var query = parameters
        if let order { query.insert(("orderBy", order.parameter), at: 0) }
        return query
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
                let gone = DataSnapshot(reference: reference, json: old ?? .null, order: order).childSnapshots
                for child in gone where after[child.key] == nil { block(child) }
                return
            }
            for child in snapshot.childSnapshots {
                let key = child.key
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
                let keys = DataSnapshot(reference: reference, json: json, order: order).childSnapshots.map(\.key)
                    .filter(kept.contains)
                return Dictionary(uniqueKeysWithValues: zip(keys.dropFirst(), keys))
            }
            let was = previousSiblings(old)
            let now = previousSiblings(new)
            for child in snapshot.childSnapshots {
                let key = child.key
                guard kept.contains(key), before[key] != after[key], was[key] != now[key]
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
    /// first events at once, without a new connection, and the location's data stays in the tree cache (on disk with
    /// ``Database/isPersistenceEnabled``) for reads while offline.
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
