import HearthCore
import HearthStore
import Synchronization

@testable import HearthListen

/// An in-memory tree for the tree hub: one node per namespace, a change log, a feed.
final class FakeTreeSource: TreeListenSource {
    struct State {
        var roots: [String: TreeNode] = [:]
        var log: [TreeChange] = []
        var sequence: Int64 = 0
        var reads = 0
        var failReads: HearthError?
        var failLog: HearthError?
        /// When set, reads report this final point and list the changes above it as held, as PostgreSQL's do when
        /// later numbers committed first.
        var readFinalPoint: Int64?
    }

    let state = Mutex(State())
    let treeFeed = ChangeFeed<TreeChange>()

    /// A PUT of `json` at `path` in namespace `ns`, published unless told not to.
    @discardableResult
    func put(_ path: String, _ json: String, ns: String = "db", publish: Bool = true) -> TreeChange {
        let location = TreePath.of(path)
        let node = try! TreeWriteValue(json: JSONParser.parse(Array(json.utf8)), at: location).node
        return commit(
            ns: ns, kind: .put, path: location, updates: [TreeChange.Update(path: .root, node: node)], publish: publish)
    }

    /// A multi-path PATCH at `path`: relative path → JSON.
    @discardableResult
    func patch(_ path: String, _ values: [(String, String)], ns: String = "db", publish: Bool = true) -> TreeChange {
        let updates = values.map { key, json in
            let relative = TreePath.of(key)
            let node = try! TreeWriteValue(json: JSONParser.parse(Array(json.utf8)), at: relative).node
            return TreeChange.Update(path: relative, node: node)
        }.sorted { $0.path < $1.path }
        return commit(ns: ns, kind: .patch, path: .of(path), updates: updates, publish: publish)
    }

    /// Drops change-log entries up to `sequence`, as the engine's retention does.
    func prune(through sequence: Int64) {
        state.withLock { $0.log.removeAll { $0.sequence <= sequence } }
    }

    private func commit(
        ns: String, kind: TreeChange.Kind, path: TreePath, updates: [TreeChange.Update], publish: Bool
    ) -> TreeChange {
        let change = state.withLock { state in
            state.sequence += 1
            let change = TreeChange(
                sequence: state.sequence, commitTime: state.sequence, namespace: ns, kind: kind, path: path,
                updates: updates)
            state.roots[ns] = change.applied(to: state.roots[ns], at: .root)
            state.log.append(change)
            return change
        }
        if publish { treeFeed.publish([change]) }
        return change
    }

    func read(_ namespace: String, at path: TreePath, auth: AuthContext?) throws(HearthError) -> TreeSnapshot {
        let result = state.withLock { state -> Result<TreeSnapshot, HearthError> in
            state.reads += 1
            if let error = state.failReads { return .failure(error) }
            let node = state.roots[namespace]?.node(at: path)
            guard let point = state.readFinalPoint else {
                return .success(TreeSnapshot(node: node, sequence: state.sequence))
            }
            let held = state.log.filter { $0.sequence > point && $0.namespace == namespace }.map(\.sequence)
            return .success(TreeSnapshot(node: node, sequence: point, alsoHeld: Set(held)))
        }
        return try result.get()
    }

    func treeHead() throws(HearthError) -> Int64 {
        state.withLock { $0.sequence }
    }

    func shallow(
        _ namespace: String, at path: TreePath, after: String?, limit: Int?, auth: AuthContext?
    ) throws(HearthError) -> TreeShallow {
        let node = state.withLock { $0.roots[namespace]?.node(at: path) }
        switch node?.content {
        case nil: return .missing
        case .leaf(let leaf)?: return .leaf(leaf)
        case .children(let children)?: return .children(children.keys.sorted())
        }
    }

    func priority(_ namespace: String, at path: TreePath) throws(HearthError) -> TreeLeaf? {
        state.withLock { $0.roots[namespace]?.node(at: path)?.priority }
    }

    func treeChanges(after sequence: Int64, limit: Int) throws(HearthError) -> [TreeChange] {
        let result = state.withLock { state -> Result<[TreeChange], HearthError> in
            if let error = state.failLog { return .failure(error) }
            return .success(Array(state.log.filter { $0.sequence > sequence }.prefix(limit)))
        }
        return try result.get()
    }
}

/// Records what the hub sends, as `"name payload"` lines; can refuse sends to play a slow or vanished client.
final class FakeTreeSink: TreeListenSink {
    struct State {
        var events: [String] = []
        var closed = false
        var refuse = false
        var refusedOversized: Int?
    }

    let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 1 << 20) {
        self.capacity = capacity
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    func send(_ event: TreeEvent, frame: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.refuse, !state.closed else { return false }
            state.events.append(describe(event))
            return true
        }
    }

    func refuseOversized(location: TreePath, bytes: Int, capacity: Int) {
        state.withLock { $0.refusedOversized = bytes }
    }

    func close() { state.withLock { $0.closed = true } }

    /// Everything received so far, then forgets it.
    func take() -> [String] {
        state.withLock { state in
            defer { state.events = [] }
            return state.events
        }
    }

    var events: [String] { state.withLock { $0.events } }

    /// What received events other than keep-alives.
    var dataEvents: [String] { events.filter { $0 != "keep-alive null" } }

    func refuse() { state.withLock { $0.refuse = true } }
}

/// `put {"path":"/","data":1}` and the like.
func describe(_ event: TreeEvent) -> String {
    event.name + " " + String(decoding: event.payload(), as: UTF8.self)
}

/// Judges streams with a closure.
struct FakeTreeAuthorizer: TreeListenAuthorizer {
    let decide: @Sendable (TreeListenRequest) throws(HearthError) -> Bool

    func canRead(_ request: TreeListenRequest) throws(HearthError) -> Bool { try decide(request) }
}

extension TreePath {
    /// `"a/b"` as a path, for tests.
    static func of(_ text: String) -> TreePath {
        TreePath(segments: text.split(separator: "/").map(String.init))
    }
}
