import Foundation
import HearthCore
import HearthRules
import HearthStore

/// The one place the tree asks the tree rules (`--database-rules`, `PUT /.settings/rules.json`) whether a caller
/// may read or write: every REST read, every write (judged inside its transaction, see ``writeJudge(_:in:)``), every
/// stream when it opens and again with each change it would receive.
///
/// Administrators bypass rules, and so does everyone under the open rules of `--dev` without a rules file, where
/// judging could only ever allow and would cost reads.
struct TreeAccess: Sendable {
    let engine: RulesEngine
    /// Where rules' `data` and `getPriority()` read; the judge of a write reads inside the write's transaction instead.
    let tree: any TreeReader
    /// What the rules' `now` reads.
    var clock: WallClock = .system

    /// The rules to judge `auth` by in `namespace`; `nil` when no judging is needed.
    func rules(for auth: AuthContext?, in namespace: String) -> DatabaseRuleset? {
        if auth?.isAdmin == true { return nil }
        let rules = engine.databaseRules(for: namespace)
        return rules === DatabaseRuleset.allowAll ? nil : rules
    }

    /// Whether `auth` may read `path` in `namespace` (with `query`, which rules see as `query.*`): some `.read` from
    /// the root down to `path` grants.
    func canRead(
        _ namespace: String, _ path: TreePath, _ auth: AuthContext?, query: TreeQuery? = nil
    ) throws(HearthError) -> Bool {
        guard let rules = rules(for: auth, in: namespace) else { return true }
        let data = storeReader(namespace)
        let decision = rules.authorizeRead(
            path: path.segments, auth: auth, data: data, now: clock.milliseconds, query: Self.rulesQuery(query))
        try data.rethrow()
        return decision.isAllowed
    }

    /// Whether `auth` may write `path` leaving it as it is (an empty PATCH, which changes nothing).
    func canWriteNothing(_ namespace: String, _ path: TreePath, _ auth: AuthContext?) throws(HearthError) -> Bool {
        guard let rules = rules(for: auth, in: namespace) else { return true }
        let data = storeReader(namespace)
        let decision = rules.authorizeWrite(
            path: path.segments, auth: auth, before: data, after: data, now: clock.milliseconds)
        try data.rethrow()
        return decision.isAllowed
    }

    /// `data` for a request that writes nothing: the namespace as stored now.
    private func storeReader(_ namespace: String) -> TreeRulesReader {
        TreeRulesReader(
            read: { [tree] path in try tree.read(namespace, at: path, auth: nil).node },
            readPriority: { [tree] path in try tree.priority(namespace, at: path) })
    }

    /// The check a write by `auth` carries into the store (``TreeWrite/judge``); `nil` when rules do not apply.
    /// Every path of a multi-path PATCH is judged against the tree as the whole update leaves it, as Firebase does.
    func writeJudge(
        _ auth: AuthContext?, in namespace: String
    ) -> (@Sendable (TreeWriteProposal) throws -> Bool)? {
        guard let rules = rules(for: auth, in: namespace) else { return nil }
        return { proposal in
            let before = TreeRulesReader(read: proposal.current, readPriority: proposal.currentPriority)
            let written = proposal.updates.map { update in
                (path: proposal.path.appending(update.path).segments, node: update.node)
            }
            let writes = written.map { (path: $0.path, value: $0.node.map(TreeRulesReader.json)) }
            let after = WrittenTreeReader(
                overlay: OverlayTreeReader(base: before, writes: writes), before: before, written: written)
            let allowed = writes.allSatisfy { write in
                rules.authorizeWrite(
                    path: write.path, auth: auth, before: before, after: after, now: proposal.nowMillis
                ).isAllowed
            }
            try before.rethrow()
            return allowed
        }
    }

    /// A query as the rules' `query` variable names it: `orderByChild` (the child path), `orderByKey`,
    /// `orderByValue`, `orderByPriority`, `startAt`/`startAfter`, `endAt`/`endBefore`, `equalTo` (both bounds equal
    /// and inclusive), `limitToFirst`, `limitToLast`.
    static func rulesQuery(_ query: TreeQuery?) -> [String: JSONValue] {
        guard let query else { return [:] }
        var members: [String: JSONValue] = [:]
        switch query.order {
        case .key: members["orderByKey"] = true
        case .value: members["orderByValue"] = true
        case .priority: members["orderByPriority"] = true
        case .child(let path): members["orderByChild"] = .string(path.segments.joined(separator: "/"))
        }
        func value(_ bound: TreeQuery.Bound) -> JSONValue { bound.value?.json ?? .null }
        if let start = query.start, let end = query.end, start == end, start.inclusive {
            members["equalTo"] = value(start)
        } else {
            if let start = query.start { members[start.inclusive ? "startAt" : "startAfter"] = value(start) }
            if let end = query.end { members[end.inclusive ? "endAt" : "endBefore"] = value(end) }
        }
        switch query.limit {
        case .first(let count)?: members["limitToFirst"] = .integer(Int64(count))
        case .last(let count)?: members["limitToLast"] = .integer(Int64(count))
        case nil: break
        }
        return members
    }

    /// The rules' `now`: milliseconds since 1970.
}

/// `data`, `root` and the base of `newData` for the tree rules: nodes read from the store, as JSON objects, each
/// location read at most once per judgement (a location inside one already read is taken from it).
///
/// A read error cannot surface through ``TreeDataReader``; it is kept, the location reads as empty, and the
/// caller rethrows it once the rules are done, so an error never turns into a decision.
final class TreeRulesReader: TreeDataReader {
    private let read: (TreePath) throws -> TreeNode?
    private let readPriority: (TreePath) throws -> TreeLeaf?
    private var cache: [[String]: JSONValue?] = [:]
    private var failure: HearthError?

    init(read: @escaping (TreePath) throws -> TreeNode?, readPriority: @escaping (TreePath) throws -> TreeLeaf?) {
        self.read = read
        self.readPriority = readPriority
    }

    /// The node's priority: one row read from the store (nodes are cached as JSON, which has no priorities).
    func priority(at path: [String]) -> JSONValue? {
        do {
            return try readPriority(TreePath(segments: path))?.json
        } catch {
            failure = failure ?? (error as? HearthError) ?? .internal("Reading a priority for rules failed: \(error)")
            return nil
        }
    }

    func value(at path: [String]) -> JSONValue? {
        if let cached = cache[path] { return cached }
        for length in stride(from: path.count - 1, through: 0, by: -1) {
            if let ancestor = cache[Array(path.prefix(length))] {
                return JSONTreeReader(root: ancestor).value(at: Array(path.dropFirst(length)))
            }
        }
        var value: JSONValue?
        do {
            value = try read(TreePath(segments: path)).map(Self.json)
        } catch {
            failure = failure ?? (error as? HearthError) ?? .internal("Reading tree data for rules failed: \(error)")
        }
        cache[path] = .some(value)
        return value
    }

    /// Throws the first read error, if any.
    func rethrow() throws(HearthError) {
        if let failure { throw failure }
    }

    /// A node as rules see it: leaves as JSON values, children always as an object (never Firebase's array form, so
    /// `child('0')` works on list-like nodes).
    static func json(_ node: TreeNode) -> JSONValue {
        switch node.content {
        case .leaf(let leaf): leaf.json
        case .children(let children): .object(children.mapValues(json))
        }
    }
}

/// `newData` of a write: the values of ``OverlayTreeReader``, and priorities as the write leaves them — from the
/// written node where the write covers the location (a PUT sets or clears the priority), from the store otherwise.
struct WrittenTreeReader: TreeDataReader {
    let overlay: OverlayTreeReader
    let before: TreeRulesReader
    let written: [(path: [String], node: TreeNode?)]

    func value(at path: [String]) -> JSONValue? { overlay.value(at: path) }

    func priority(at path: [String]) -> JSONValue? {
        guard let covering = written.last(where: { $0.path.count <= path.count && path.starts(with: $0.path) }) else {
            return before.priority(at: path)
        }
        let relative = TreePath(segments: Array(path.dropFirst(covering.path.count)))
        return covering.node?.node(at: relative)?.priority?.json
    }
}
