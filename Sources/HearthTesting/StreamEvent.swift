public import HearthCore

/// One Server-Sent Event as a test sees it: its `event:` name, if any, and its `data:` lines joined by newlines. Both
/// channels send these: the documents listen channel (`session`, then `ListenResponse` JSON) and tree streams
/// (`put`/`patch` with `{"path":…,"data":…}`, `keep-alive`, `cancel`, `auth_revoked`).
public struct StreamEvent: Sendable, Equatable, CustomStringConvertible {
    /// The `event:` field; `nil` when the block had none.
    public var name: String?
    /// The `data:` lines, joined with `\n`.
    public var data: String

    /// An event.
    public init(name: String?, data: String) {
        self.name = name
        self.data = data
    }

    /// An event named `event`, as tree streams send them.
    public init(event: String, data: String) {
        self.init(name: event, data: data)
    }

    /// The name, or `message` (what a browser's `EventSource` calls an unnamed event).
    public var event: String { name ?? "message" }

    /// The data parsed as JSON (`nil` when it is not).
    public var json: JSONValue? { try? JSONParser.parse(data) }
    /// A tree event's `path`.
    public var path: String? { json?["path"]?.stringValue }
    /// A tree event's `data`.
    public var payload: JSONValue? { json?["data"] }

    /// `event: NAME DATA…`, shortened.
    public var description: String { (name.map { "event: \($0) " } ?? "") + String(data.prefix(300)) }
}
