public import HearthCore

/// Reads tree data for rules: `data`, `root` (before a write) and `newData` (as it would be after). The server
/// implements it over its tree; ``JSONTreeReader`` serves a JSON value held in memory.
public protocol TreeDataReader {
    /// The value at `path` (segments from the root), or `nil` when nothing is there.
    func value(at path: [String]) -> JSONValue?
    /// The priority of the node at `path` (`getPriority()`), or `nil` when it has none.
    func priority(at path: [String]) -> JSONValue?
}

extension TreeDataReader {
    /// Readers of plain JSON hold no priorities.
    public func priority(at path: [String]) -> JSONValue? { nil }
}

/// A ``TreeDataReader`` over one JSON value: the whole tree.
public struct JSONTreeReader: TreeDataReader {
    /// The tree's root value; `nil` for an empty tree.
    public var root: JSONValue?

    /// A reader over `root`.
    public init(root: JSONValue?) { self.root = root }

    /// Walks object members from the root; `null` counts as absent, as in the Realtime Database.
    public func value(at path: [String]) -> JSONValue? {
        var current = root
        for key in path {
            guard case .object(let members)? = current else { return nil }
            current = members[key]
        }
        if case .null? = current { return nil }
        return current
    }
}

/// A ``TreeDataReader`` that shows `write` applied over `base`: the `newData` of a write.
public struct OverlayTreeReader: TreeDataReader {
    /// The tree before the write.
    public var base: any TreeDataReader
    /// The written locations and their new values (`nil` deletes), applied in order.
    public var writes: [(path: [String], value: JSONValue?)]

    /// A reader that overlays `writes` on `base`.
    public init(base: any TreeDataReader, writes: [(path: [String], value: JSONValue?)]) {
        self.base = base
        self.writes = writes
    }

    /// The value at `path` after the writes. The last write covering `path` (at it or above) decides what is there,
    /// so the base is read only when no write covers it — a write's own location never costs a read of the old data.
    public func value(at path: [String]) -> JSONValue? {
        var result: JSONValue?
        var first = writes.startIndex
        if let covering = writes.lastIndex(where: { $0.path.count <= path.count && path.starts(with: $0.path) }) {
            result = JSONTreeReader(root: writes[covering].value).value(
                at: Array(path.dropFirst(writes[covering].path.count)))
            first = covering + 1
        } else {
            result = base.value(at: path)
        }
        // Writes below `path` after that are patched into it.
        for write in writes[first...] where path.count < write.path.count && write.path.starts(with: path) {
            result = Self.setting(result, Array(write.path.dropFirst(path.count)), write.value)
        }
        return result
    }

    static func setting(_ value: JSONValue?, _ path: [String], _ newValue: JSONValue?) -> JSONValue? {
        guard let key = path.first else { return newValue }
        var members: [String: JSONValue] = [:]
        if case .object(let existing)? = value { members = existing }
        let child = setting(members[key], Array(path.dropFirst()), newValue)
        if let child, !child.isNull { members[key] = child } else { members[key] = nil }
        return members.isEmpty ? nil : .object(members)
    }
}
