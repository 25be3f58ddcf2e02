public import Foundation
import HearthCore
import Synchronization

/// How a ``DatabaseQuery`` orders children.
enum TreeOrder: Sendable, Equatable {
    case key
    case value
    case priority
    case child(String)

    /// The order as the server reads the `orderBy` parameter (a child path that is not a valid path falls back to
    /// key order locally; the server refuses such a query).
    var treeQueryOrder: TreeQuery.Order {
        ((try? TreeQuery.parse(rest: ["orderBy": parameter])) ?? nil)?.order ?? .key
    }

    /// The REST `orderBy` parameter (a JSON string).
    var parameter: String {
        switch self {
        case .key: "\"$key\""
        case .value: "\"$value\""
        case .priority: "\"$priority\""
        case .child(let path): JSONValue.string(path).jsonString
        }
    }
}

/// A read of part of the tree: ordered, bounded, limited — Hearth's `DatabaseQuery`.
/// Not final: `DatabaseReference` is a query, as in Firebase. Its stored properties are immutable Sendable values.
public class DatabaseQuery: @unchecked Sendable {
    /// The database.
    public let database: Database
    let path: [String]
    let order: TreeOrder?
    let parameters: [(String, String)]

    init(_ database: Database, _ path: [String], order: TreeOrder? = nil, parameters: [(String, String)] = []) {
        self.database = database
        self.path = path
        self.order = order
        self.parameters = parameters
    }

    /// The reference this query reads.
    public var ref: DatabaseReference { DatabaseReference(database, path) }

    private func with(order: TreeOrder? = nil, _ name: String, _ value: Any?) -> DatabaseQuery {
        var parameters = self.parameters
        if let value {
            let json = (try? TreeJSON.json(value)) ?? .null
            parameters.append((name, json.jsonString))
        }
        return DatabaseQuery(database, path, order: order ?? self.order, parameters: parameters)
    }

    /// Orders children by the value at a child path.
    public func queryOrdered(byChild key: String) -> DatabaseQuery { with(order: .child(key), "", nil) }
    /// Orders children by key.
    public func queryOrderedByKey() -> DatabaseQuery { with(order: .key, "", nil) }
    /// Orders children by value.
    public func queryOrderedByValue() -> DatabaseQuery { with(order: .value, "", nil) }
    /// Orders children by priority.
    public func queryOrderedByPriority() -> DatabaseQuery { with(order: .priority, "", nil) }
    /// The first `limit` children in order.
    public func queryLimited(toFirst limit: UInt) -> DatabaseQuery { with("limitToFirst", Int(limit)) }
    /// The last `limit` children in order.
    public func queryLimited(toLast limit: UInt) -> DatabaseQuery { with("limitToLast", Int(limit)) }
    /// Children from `value` on, in the current order.
    public func queryStarting(atValue value: Any?) -> DatabaseQuery { with("startAt", value ?? NSNull()) }
    /// Children up to `value`, in the current order.
    public func queryEnding(atValue value: Any?) -> DatabaseQuery { with("endAt", value ?? NSNull()) }
    /// Children equal to `value`, in the current order.
    public func queryEqual(toValue value: Any?) -> DatabaseQuery { with("equalTo", value ?? NSNull()) }

    /// Reads the value once from the server, with the writes still queued applied. When the server is unreachable,
    /// answers from the cache of locations read or observed before (a query from its location's cached value, with
    /// its order, bounds and limit applied locally), or throws `unavailable` when nothing is known.
    public func getData() async throws -> DataSnapshot {
        let query = requestParameters
        let window = TreeQueryWindow(parameters: query)
        let value: JSONValue
        do {
            let (json, _) = try await database.send("GET", path: path, query: query)
            if window == nil { database.local.cache.store(json, at: path) }
            value = database.view(at: path, window: window, server: json) ?? json
        } catch let error as DatabaseError where error.code == .unavailable {
            guard let cached = database.view(at: path, window: window, server: nil) else { throw error }
            value = cached
        }
        return DataSnapshot(reference: ref, json: value, order: order ?? .key)
    }

    /// Completion-handler form of ``getData()``.
    public func getData(completion: @escaping ((any Error)?, DataSnapshot?) -> Void) {
        let completion = callbackQueueBound(completion)
        let report: @Sendable (DataSnapshot?, (any Error)?) -> Void = { snapshot, error in completion(error, snapshot) }
        database.observers.callbacks.complete(report) { try await self.getData() }
    }

    /// Calls `block` once, then stops: for `.value`, with the value read as ``getData()`` reads it (so from the cache
    /// when offline); for a child event, with the first such event an observer would get — `.childAdded` with the
    /// first existing child, or the next one added.
    public func observeSingleEvent(of eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) {
        let block = callbackQueueBound(block)
        guard eventType != .value else {
            let callbacks = database.observers.callbacks
            Task { if let snapshot = try? await getData() { callbacks.async { block(snapshot) } } }
            return
        }
        // The first callback may come before `observe` has returned the handle: whoever comes second removes it.
        let once = Mutex<(fired: Bool, handle: UInt?)>((false, nil))
        let observers = database.observers
        let handle = observe(eventType) { snapshot in
            let (first, handle) = once.withLock { state in
                defer { state.fired = true }
                return (!state.fired, state.handle)
            }
            guard first else { return }
            block(snapshot)
            if let handle { observers.remove(handle) }
        }
        let fired = once.withLock { state in
            state.handle = handle
            return state.fired
        }
        if fired { observers.remove(handle) }
    }
}

/// The events an observer can ask for — Hearth's `DataEventType`.
public enum DataEventType: Int, Sendable {
    /// A child was added.
    case childAdded
    /// A child was removed.
    case childRemoved
    /// A child changed.
    case childChanged
    /// A child moved in the query order.
    case childMoved
    /// The whole value at the location.
    case value
}

/// A location in the tree — Hearth's `DatabaseReference`.
public final class DatabaseReference: DatabaseQuery, @unchecked Sendable {
    init(_ database: Database, _ path: [String]) { super.init(database, path) }

    /// The last path segment, or `nil` at the root.
    public var key: String? { path.last }
    /// The parent location, or `nil` at the root.
    public var parent: DatabaseReference? { path.isEmpty ? nil : DatabaseReference(database, Array(path.dropLast())) }
    /// The root of the tree.
    public var root: DatabaseReference { DatabaseReference(database, []) }
    /// The location's URL.
    public var url: String {
        database.app.serverURL.absoluteString.trimmingSuffix("/") + "/" + path.joined(separator: "/")
    }

    /// A child location by relative, slash-separated path.
    public func child(_ pathString: String) -> DatabaseReference {
        DatabaseReference(database, path + pathString.split(separator: "/").map(String.init))
    }

    /// A child with a new, time-ordered push key (nothing is written yet).
    public func childByAutoId() -> DatabaseReference { DatabaseReference(database, path + [database.nextPushID()]) }

    /// Replaces the value (`nil` removes it). Observers see it at once; resumes when the server has acknowledged the
    /// write (see docs/sdk.md, "When a tree write completes").
    public func setValue(_ value: Any?) async throws {
        try await database.write("PUT", path: path, body: try TreeJSON.json(value))
    }

    /// Replaces the value and sets the node's priority.
    public func setValue(_ value: Any?, andPriority priority: Any?) async throws {
        try await database.write("PUT", path: path, body: try Self.json(value, priority: priority))
    }

    /// The body that writes `value` with `priority`: an object gains `.priority`, a leaf becomes
    /// `{".value", ".priority"}`, as the REST API takes them.
    static func json(_ value: Any?, priority: Any?) throws(FirestoreErrorCode) -> JSONValue {
        let json = try TreeJSON.json(value)
        let priorityJSON = try TreeJSON.json(priority)
        guard case .object(var members) = json else { return [".value": json, ".priority": priorityJSON] }
        members[".priority"] = priorityJSON
        return .object(members)
    }

    /// Writes several children at once; keys may be paths (`"a/b"`), `NSNull`/`nil` removes. All or nothing.
    public func updateChildValues(_ values: [AnyHashable: Any]) async throws {
        try await database.write("PATCH", path: path, body: try TreeJSON.json(values))
    }

    /// Removes the value and every child.
    public func removeValue() async throws {
        try await database.write("DELETE", path: path, body: .null)
    }

    /// Fire-and-forget form of ``setValue(_:)``, as Firebase's synchronous `setValue(_:)`: the write is queued (and
    /// its observers' events queued) when this returns; the server's answer is not reported.
    public func setValue(_ value: Any?) {
        setValue(value) { _, _ in }
    }

    /// Fire-and-forget form of ``setValue(_:andPriority:)``, queued as ``setValue(_:)`` is.
    public func setValue(_ value: Any?, andPriority priority: Any?) {
        let body = Result { () throws(FirestoreErrorCode) in try Self.json(value, priority: priority) }
        queue("PUT", body) { _, _ in }
    }

    /// Fire-and-forget form of ``updateChildValues(_:)``, queued as ``setValue(_:)`` is.
    public func updateChildValues(_ values: [AnyHashable: Any]) {
        updateChildValues(values) { _, _ in }
    }

    /// Fire-and-forget form of ``removeValue()``, queued as ``setValue(_:)`` is.
    public func removeValue() {
        removeValue { _, _ in }
    }

    /// Completion-handler form of ``setValue(_:)``: the write is queued (and the observers' events for it queued on
    /// ``Database/callbackQueue``) before this returns; `block` runs there, after those events, when the server
    /// acknowledged or refused it.
    public func setValue(
        _ value: Any?, withCompletionBlock block: @escaping ((any Error)?, DatabaseReference) -> Void
    ) {
        queue("PUT", Result { () throws(FirestoreErrorCode) in try TreeJSON.json(value) }, callbackQueueBound(block))
    }

    /// Completion-handler form of ``updateChildValues(_:)``, queued as ``setValue(_:withCompletionBlock:)`` is.
    public func updateChildValues(
        _ values: [AnyHashable: Any],
        withCompletionBlock block: @escaping ((any Error)?, DatabaseReference) -> Void
    ) {
        queue("PATCH", Result { () throws(FirestoreErrorCode) in try TreeJSON.json(values) }, callbackQueueBound(block))
    }

    /// Completion-handler form of ``removeValue()``, queued as ``setValue(_:withCompletionBlock:)`` is.
    public func removeValue(completionBlock block: @escaping ((any Error)?, DatabaseReference) -> Void) {
        queue("DELETE", .success(.null), callbackQueueBound(block))
    }

    /// Queues a write now, so completion-form writes keep their order, and calls `block` with the server's answer.
    private func queue(
        _ method: String, _ body: Result<JSONValue, FirestoreErrorCode>,
        _ block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        let callbacks = database.observers.callbacks
        let id: Int64
        switch body {
        case .success(let json):
            do {
                id = try database.enqueue(method, path: path, body: json)
            } catch {
                callbacks.async { block(error, self) }
                return
            }
        case .failure(let error):
            callbacks.async { block(error, self) }
            return
        }
        let queue = database.local.queue
        let report: @Sendable ((any Error)?) -> Void = { error in block(error, self) }
        callbacks.completeVoid(report) { try await queue.wait(for: id) }
    }

    /// Reads, changes and conditionally writes the value until no one else wrote in between (ETag `if-match`),
    /// up to 25 attempts. Returns whether it committed and the final value.
    public func runTransactionBlock(
        _ block: (MutableData) -> TransactionResult
    ) async throws -> (Bool, DataSnapshot) {
        for _ in 0..<25 {
            let (current, response) = try await database.send("GET", path: path, headers: ["X-Firebase-ETag": "true"])
            let data = MutableData(value: TreeJSON.any(current), key: key)
            let result = block(data)
            guard result.committed else {
                return (false, DataSnapshot(reference: self, json: current, order: .key))
            }
            let next = try TreeJSON.json(result.data?.value)
            do {
                _ = try await database.send(
                    "PUT", path: path, body: next, headers: ["if-match": response.headers["etag"] ?? "null_etag"])
                return (true, DataSnapshot(reference: self, json: next, order: .key))
            } catch let error as FirestoreErrorCode where error.code == .failedPrecondition {
                continue
            }
        }
        throw DatabaseError(.aborted, "The transaction did not commit after 25 attempts: too much contention.")
    }
}

/// The value a transaction block sees and changes — Hearth's `MutableData`.
public final class MutableData {
    /// The current value (`nil` when absent); set it to the new value.
    public var value: Any?
    /// The location's key.
    public let key: String?

    init(value: Any?, key: String?) {
        self.value = value
        self.key = key
    }
}

/// What a transaction block decided — Hearth's `TransactionResult`.
public struct TransactionResult {
    let committed: Bool
    let data: MutableData?

    /// Write `value`.
    public static func success(withValue value: MutableData) -> TransactionResult {
        TransactionResult(committed: true, data: value)
    }

    /// Leave the value unchanged.
    public static func abort() -> TransactionResult { TransactionResult(committed: false, data: nil) }
}

/// A value read from the tree — Hearth's `DataSnapshot`.
public final class DataSnapshot: Sendable {
    /// The location read.
    public let ref: DatabaseReference
    let json: JSONValue
    let order: TreeOrder

    init(reference: DatabaseReference, json: JSONValue, order: TreeOrder) {
        ref = reference
        self.json = json
        self.order = order
    }

    /// The location's key — a `String`, as Firebase declares it, so `child("\(snapshot.key)")` names the same
    /// child; the empty string at the root.
    public var key: String { ref.key ?? "" }
    /// The value as Firebase returns it: `String`, `Int`, `Double`, `Bool`, `[String: Any]`, or `nil` when absent.
    public var value: Any? { TreeJSON.any(json) }
    /// Whether a value exists.
    public func exists() -> Bool { json != .null }
    /// The number of direct children.
    public var childrenCount: UInt { UInt(json.objectValue?.count ?? json.arrayValue?.count ?? 0) }
    /// Whether a child path exists.
    public func hasChild(_ childPathString: String) -> Bool { childSnapshot(forPath: childPathString).exists() }
    /// Whether there are children.
    public func hasChildren() -> Bool { childrenCount > 0 }

    /// The snapshot at a child path (empty when absent).
    public func childSnapshot(forPath childPathString: String) -> DataSnapshot {
        let segments = childPathString.split(separator: "/").map(String.init)
        var node = json
        for segment in segments { node = node[segment] ?? .null }
        return DataSnapshot(reference: ref.child(childPathString), json: node, order: .key)
    }

    /// The direct children in query order (by key unless the query ordered otherwise), as Firebase declares them: an
    /// `NSEnumerator` of `DataSnapshot`s, so `snapshot.children.allObjects as? [DataSnapshot]`,
    /// `for case let child as DataSnapshot in snapshot.children` and `nextObject() as? DataSnapshot` work as there.
    public var children: NSEnumerator { DataSnapshotEnumerator(childSnapshots) }

    /// The direct children in query order, typed: ordered by HearthCore's `TreeQuery`, as the server orders them.
    var childSnapshots: [DataSnapshot] {
        let ordered = TreeQuery(order: order.treeQueryOrder).window(of: TreeJSON.node(json))
        return ordered.map { DataSnapshot(reference: ref.child($0.key), json: $0.node.json(.plain), order: .key) }
    }
}
