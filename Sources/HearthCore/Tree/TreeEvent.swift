/// One Server-Sent Event of a Realtime Database stream (`Accept: text/event-stream`).
public enum TreeEvent: Sendable, Hashable {
    /// Replace the node at `path` (relative to the listened location) with `node`.
    case put(path: TreePath, node: TreeNode?)
    /// For each update, replace the node at `path` + update path with the update's node.
    case patch(path: TreePath, updates: [TreeChange.Update])
    /// Sent on an idle stream so proxies and clients know it is alive.
    case keepAlive
    /// The listener may no longer read the location; the stream ends.
    case cancel
    /// The listener's credential expired or was revoked; the stream ends.
    case authRevoked

    /// The event's name on the wire.
    public var name: String {
        switch self {
        case .put: "put"
        case .patch: "patch"
        case .keepAlive: "keep-alive"
        case .cancel: "cancel"
        case .authRevoked: "auth_revoked"
        }
    }

    /// The `data` payload: `{"path": "/a", "data": …}` for `put` and `patch`, `null` for `keep-alive` and `cancel`,
    /// and for `auth_revoked` the bare text Firebase sends (`credential is no longer valid`), which clients match.
    public func payload(_ format: TreeFormat = .plain) -> [UInt8] {
        switch self {
        case .put(let path, let node):
            return Self.envelope(path, TreeNode.json(node, format))
        case .patch(let path, let updates):
            var members: [String: JSONValue] = [:]
            for update in updates {
                members[String(update.path.description.dropFirst())] = TreeNode.json(update.node, format)
            }
            return Self.envelope(path, .object(members))
        case .keepAlive, .cancel:
            return Array("null".utf8)
        case .authRevoked:
            return Array("credential is no longer valid".utf8)
        }
    }

    /// The complete SSE frame: `event: put\ndata: {…}\n\n`. JSON never holds a raw newline, so one `data:` line
    /// always suffices.
    public func frame(_ format: TreeFormat = .plain) -> [UInt8] {
        var bytes = Array("event: \(name)\ndata: ".utf8)
        bytes += payload(format)
        bytes += Array("\n\n".utf8)
        return bytes
    }

    private static func envelope(_ path: TreePath, _ data: JSONValue) -> [UInt8] {
        var bytes = Array(#"{"path":"#.utf8)
        JSONWriter.appendString(path.description, into: &bytes)
        bytes += Array(#","data":"#.utf8)
        JSONWriter.write(data, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
