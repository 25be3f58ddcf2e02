import HearthCore
import HearthStore

/// One open stream (`GET … Accept: text/event-stream`): where it listens, its query, and what it has been sent.
struct TreeListener {
    /// The hub's ID for it.
    let id: Int
    /// What the stream asked for.
    let request: TreeListenRequest
    /// The database.
    var namespace: String { request.namespace }
    /// The listened location.
    var location: TreePath { request.location }
    /// The query, when the stream was opened with one: it then only ever sees its window.
    var query: TreeQuery? { request.query }
    /// `format=export` streams carry priorities.
    var format: TreeFormat { request.format }
    /// The caller, for access checks.
    var auth: AuthContext? { request.auth }
    /// When the caller's ID token expires (its `exp` claim, seconds since 1970): no change is delivered after it.
    var expiresAt: Int64? {
        guard let auth, !auth.isAdmin else { return nil }
        switch auth.claims["exp"] {
        case .integer(let seconds)?: return seconds
        case .double(let seconds)?: return Int64(seconds)
        default: return nil
        }
    }
    /// Where events go.
    let sink: any TreeListenSink
    /// The last change-log sequence reflected in what was sent; older changes are skipped.
    var sequence: Int64 = .max
    /// Later changes the first read already held (``TreeSnapshot/alsoHeld``): skipped too, so none is sent twice.
    var alsoHeld: Set<Int64> = []
    /// For a query: the location's whole value, kept current by applying changes, and the window last sent.
    var data: TreeNode?
    var window: [String: TreeNode] = [:]

    /// The event for `change`, updating what the listener knows; `nil` when the change does not alter what it sees.
    mutating func event(for change: TreeChange) -> TreeEvent? {
        guard change.sequence > sequence, change.namespace == namespace else { return nil }
        sequence = change.sequence
        if !alsoHeld.isEmpty {
            let held = alsoHeld.contains(change.sequence)
            alsoHeld = alsoHeld.filter { $0 > change.sequence }
            if held { return nil }
        }
        guard let query else { return change.event(at: location) }
        data = change.applied(to: data, at: location)
        let next = Self.windowMap(query, data)
        defer { window = next }
        return TreeQuery.event(from: window, to: next)
    }

    /// The first event: a `put` at `/` of everything the listener sees in `snapshot`.
    mutating func start(with snapshot: TreeSnapshot) -> TreeEvent {
        sequence = snapshot.sequence
        alsoHeld = snapshot.alsoHeld
        guard let query else { return .put(path: .root, node: snapshot.node) }
        data = snapshot.node
        window = Self.windowMap(query, data)
        return .put(path: .root, node: TreeNode.children(window))
    }

    private static func windowMap(_ query: TreeQuery, _ node: TreeNode?) -> [String: TreeNode] {
        var map: [String: TreeNode] = [:]
        for entry in query.window(of: node) { map[entry.key] = entry.node }
        return map
    }
}
