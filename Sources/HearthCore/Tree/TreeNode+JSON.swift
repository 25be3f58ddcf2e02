/// How a node is rendered as JSON.
public enum TreeFormat: Sendable, Hashable {
    /// What `GET` returns: priorities left out; an object whose keys are all array indexes and at least half full
    /// becomes an array (missing entries `null`), as Firebase returns arrays it was given.
    case plain
    /// `format=export`: priorities included as `.priority` (a leaf with a priority becomes
    /// `{".value": …, ".priority": …}`), objects never turned into arrays, so the output can be written back as is.
    case export
}

extension TreeNode {
    /// The node as JSON in `format`.
    public func json(_ format: TreeFormat = .plain) -> JSONValue {
        switch content {
        case .leaf(let leaf):
            guard format == .export, let priority else { return leaf.json }
            return .object([".value": leaf.json, ".priority": priority.json])
        case .children(let children):
            if format == .plain, let array = Self.arrayForm(of: children) { return .array(array) }
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(children.count + 1)
            for (key, child) in children { members[key] = child.json(format) }
            if format == .export, let priority { members[".priority"] = priority.json }
            return .object(members)
        }
    }

    /// The JSON of an optional node: `null` when absent.
    public static func json(_ node: TreeNode?, _ format: TreeFormat = .plain) -> JSONValue {
        node?.json(format) ?? .null
    }

    /// Firebase's array heuristic: every key is a canonical non-negative integer (`0`, `7`, not `07`) and the
    /// largest is below twice the number of children.
    static func arrayForm(of children: [String: TreeNode]) -> [JSONValue]? {
        var maxIndex = -1
        for key in children.keys {
            guard let index = arrayIndex(key) else { return nil }
            maxIndex = max(maxIndex, index)
        }
        guard maxIndex < 2 * children.count else { return nil }
        var array = [JSONValue](repeating: .null, count: maxIndex + 1)
        for (key, child) in children { array[arrayIndex(key)!] = child.json(.plain) }
        return array
    }

    private static func arrayIndex(_ key: String) -> Int? {
        let utf8 = key.utf8
        guard let first = utf8.first, utf8.count <= 9, utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            first != UInt8(ascii: "0") || utf8.count == 1
        else { return nil }
        return Int(key)
    }
}
