/// A value sent to be written at a location, parsed and checked, whose server values are filled in only when the
/// write is applied (an increment needs the value current at that moment).
public struct TreeWriteValue: Sendable, Hashable {
    /// A server value and where it sits, relative to the write's location.
    public struct ServerValueSite: Sendable, Hashable {
        /// Where the server value sits, relative to the write's location.
        public var path: TreePath
        /// What to put there.
        public var value: ServerValue
    }

    /// The value with a placeholder leaf at each server-value site; `nil` deletes.
    public private(set) var node: TreeNode?
    /// The server values to fill in.
    public private(set) var serverValues: [ServerValueSite]

    /// A value without server values.
    public init(node: TreeNode?) {
        self.node = node
        serverValues = []
    }

    /// Parses JSON to be written at `location`, with Firebase's rules: `null` and empty objects delete, arrays become
    /// objects keyed `0`, `1`, …, `.priority` sets a priority (a number, a string or null), `.value` carries a leaf
    /// beside its priority, `.sv` asks for a server value; keys must be valid and no leaf deeper than 32 levels.
    /// - Throws: `INVALID_ARGUMENT` saying what is wrong and where.
    public init(json: JSONValue, at location: TreePath) throws(HearthError) {
        var sites: [ServerValueSite] = []
        node = try Self.parse(json, path: location, base: location.count, sites: &sites)
        serverValues = sites
    }

    /// Whether any server value awaits resolution.
    public var hasServerValues: Bool { !serverValues.isEmpty }

    /// The value with every server value filled in.
    /// - Parameters:
    ///   - nowMillis: the commit time, milliseconds since the epoch.
    ///   - current: the node stored now at a path relative to the write's location (for increments).
    public func resolved(nowMillis: Int64, current: (TreePath) -> TreeNode?) -> TreeNode? {
        guard var result = node else { return nil }
        for site in serverValues {
            let leaf = site.value.resolve(nowMillis: nowMillis, current: current(site.path))
            let priority = result.node(at: site.path)?.priority
            result = TreeNode.setting(.leaf(leaf, priority: priority), at: site.path, in: result) ?? result
        }
        return result
    }

    private static func parse(
        _ json: JSONValue, path: TreePath, base: Int, sites: inout [ServerValueSite]
    ) throws(HearthError) -> TreeNode? {
        if path.count > TreeLimits.maxDepth {
            throw .invalidArgument(
                "Invalid data; the value at \(path.description.prefix(200)) is deeper than \(TreeLimits.maxDepth) levels."
            )
        }
        switch json {
        case .null:
            return nil
        case .bool, .integer, .double:
            return .leaf(TreeLeaf(json: json)!)
        case .string(let text):
            if text.utf8.count > TreeLimits.maxStringBytes {
                throw .invalidArgument("Invalid data; a string is longer than \(TreeLimits.maxStringBytes) bytes.")
            }
            return .leaf(.string(text))
        case .array(let elements):
            var children: [String: TreeNode] = [:]
            for (index, element) in elements.enumerated() {
                let key = String(index)
                children[key] = try parse(element, path: path.child(key), base: base, sites: &sites)
            }
            return .children(children)
        case .object(let members):
            return try parseObject(members, path: path, base: base, sites: &sites)
        }
    }

    private static func parseObject(
        _ members: [String: JSONValue], path: TreePath, base: Int, sites: inout [ServerValueSite]
    ) throws(HearthError) -> TreeNode? {
        if let sv = members[".sv"] {
            guard members.count == 1 else {
                throw .invalidArgument(
                    "Invalid data; \".sv\" cannot have sibling keys at \(path.description.prefix(200)).")
            }
            let value = try ServerValue(sv: sv)
            sites.append(ServerValueSite(path: TreePath(segments: Array(path.segments[base...])), value: value))
            return .leaf(.integer(0))
        }
        let priority = try members[".priority"].flatMap { json throws(HearthError) in try parsePriority(json, path) }
        if let value = members[".value"] {
            guard members.count == (members[".priority"] == nil ? 1 : 2) else {
                throw .invalidArgument(
                    "Invalid data; \".value\" can only be combined with \".priority\" at \(path.description.prefix(200))."
                )
            }
            guard var node = try parse(value, path: path, base: base, sites: &sites) else { return nil }
            node.priority = priority
            return node
        }
        var children: [String: TreeNode] = [:]
        children.reserveCapacity(members.count)
        for (key, value) in members where key != ".priority" {
            if let problem = TreeKey.problem(with: key) {
                throw .invalidArgument("Invalid data; \(problem) (at \(path.description.prefix(200))).")
            }
            children[key] = try parse(value, path: path.child(key), base: base, sites: &sites)
        }
        return .children(children, priority: priority)
    }

    /// Reads a priority: a number or a string; `null` means none.
    public static func parsePriority(_ json: JSONValue, _ path: TreePath) throws(HearthError) -> TreeLeaf? {
        switch json {
        case .null: return nil
        case .integer, .double, .string: return TreeLeaf(json: json)
        default:
            throw .invalidArgument(
                "Invalid data; a priority must be a number, a string or null (at \(path.description.prefix(200))).")
        }
    }
}
