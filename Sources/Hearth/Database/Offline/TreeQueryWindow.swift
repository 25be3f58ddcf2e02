import HearthCore

/// A query's window worked out locally — its order, bounds and limit exactly as the server applies them, through
/// HearthCore's `TreeQuery` — so a query observer shows local writes inside its window only, and a query can be
/// answered from the cached location while the server is unreachable.
struct TreeQueryWindow: Sendable {
    let query: TreeQuery

    /// The window of a query's REST parameters (`orderBy`, `startAt`, `endAt`, `equalTo`, `limitToFirst`,
    /// `limitToLast`, each JSON), or `nil` for a plain location — and for parameters the server refuses, whose
    /// request fails there with the server's error.
    init?(parameters: [(String, String)]) {
        let named = Dictionary(parameters, uniquingKeysWith: { _, last in last })
        guard let query = try? TreeQuery.parse(rest: named) else { return nil }
        self.query = query
    }

    /// The children of `value` inside the window (a leaf stays as it is).
    func apply(_ value: JSONValue) -> JSONValue {
        guard let node = TreeJSON.node(value), case .children = node.content else { return value }
        let kept = query.window(of: node)
        guard !kept.isEmpty else { return .null }
        return .object(Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.node.json(.plain)) }))
    }
}
