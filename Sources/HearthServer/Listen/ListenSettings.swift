/// `hearth serve`'s settings for live listeners (`--listen-heartbeat`, `--listen-buffer`, `--tree-stream-buffer`).
public struct ListenSettings: Sendable, Equatable {
    /// Seconds a listen stream may stay silent before the server sends a heartbeat (an SSE comment).
    public var heartbeatSeconds: Double = 15
    /// The most bytes that may wait for one listen stream's client; a client that falls further behind is cut off.
    /// A target's initial results go out at once, so this also bounds them: a target whose results exceed half of
    /// it is refused (`RESOURCE_EXHAUSTED`) instead of cutting the session off.
    public var bufferBytes: Int = 8 << 20
    /// The same for one tree stream (`--tree-stream-buffer`); a location whose first `put` is larger is refused
    /// with `cancel` rather than cutting the client off silently.
    public var treeBufferBytes: Int = 16 << 20

    /// The defaults.
    public init() {}
}
