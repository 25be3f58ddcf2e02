import HearthCore

/// A query's window worked out locally — its order, bounds and limit as the server applies them — so a query
/// observer shows local writes inside its window only, and a query can be answered from the cached location while
/// the server is unreachable.
struct TreeQueryWindow: Sendable {
    var order: TreeOrder
    var start: JSONValue?
    var end: JSONValue?
    var equal: JSONValue?
    var first: Int?
    var last: Int?

    /// The window of a query's REST parameters (`orderBy`, `startAt`, `endAt`, `equalTo`, `limitToFirst`,
    /// `limitToLast`, each JSON), or `nil` for a plain location.
    init?(parameters: [(String, String)]) {
        guard !parameters.isEmpty else { return nil }
        order = .key
        for (name, text) in parameters {
            guard let value = try? JSONParser.parse(text) else { continue }
            switch name {
            case "orderBy":
                switch value.stringValue {
                case "$key": order = .key
                case "$value": order = .value
                case "$priority": order = .priority
                case let path?: order = .child(path)
                case nil: break
                }
            case "startAt": start = value
            case "endAt": end = value
            case "equalTo": equal = value
            case "limitToFirst": first = value.doubleValue.map { Int($0) }
            case "limitToLast": last = value.doubleValue.map { Int($0) }
            default: break
            }
        }
    }

    /// The children of `value` inside the window (a leaf stays as it is).
    func apply(_ value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        var children = members.filter { inBounds(key: $0.key, value: $0.value) }.map { ($0.key, $0.value) }
        children.sort { lhs, rhs in
            let primary = compare(key: lhs.0, value: lhs.1, to: rank(key: rhs.0, value: rhs.1))
            return primary != 0 ? primary < 0 : TreeJSON.compareKeys(lhs.0, rhs.0) < 0
        }
        if let first { children = Array(children.prefix(max(0, first))) }
        if let last { children = Array(children.suffix(max(0, last))) }
        return children.isEmpty ? .null : .object(Dictionary(uniqueKeysWithValues: children))
    }

    /// What a child is ordered by: its key, or a value (priorities are not kept locally: `null`).
    private func rank(key: String, value: JSONValue) -> JSONValue {
        switch order {
        case .key: .string(key)
        case .value: value
        case .priority: .null
        case .child(let path): TreeLocalView.descend(value, path.split(separator: "/").map(String.init)[...]) ?? .null
        }
    }

    /// How a child compares with a bound in the window's order.
    private func compare(key: String, value: JSONValue, to bound: JSONValue) -> Int {
        if case .key = order { return TreeJSON.compareKeys(key, bound.stringValue ?? bound.jsonString) }
        return TreeJSON.compare(rank(key: key, value: value), bound)
    }

    private func inBounds(key: String, value: JSONValue) -> Bool {
        if let equal, compare(key: key, value: value, to: equal) != 0 { return false }
        if let start, compare(key: key, value: value, to: start) < 0 { return false }
        if let end, compare(key: key, value: value, to: end) > 0 { return false }
        return true
    }
}
