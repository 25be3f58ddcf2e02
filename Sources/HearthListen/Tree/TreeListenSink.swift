public import HearthCore

/// Where one tree stream's events go: the transport (an SSE response today, a WebSocket later).
///
/// The hub calls it from its own thread, one call at a time, in commit order. Implementations only queue the bytes:
/// a sink that blocks stalls every tree listener.
public protocol TreeListenSink: AnyObject, Sendable {
    /// The most bytes the stream may hold queued; a first `put` larger than this is refused rather than sent.
    var capacity: Int { get }
    /// Whether the stream has ended (the client went away, or it was cut off or closed).
    var isClosed: Bool { get }
    /// Queues `event`; `frame` is its SSE encoding in the stream's format, shared by every stream at the same
    /// location. Returns `false` when the client is gone or has fallen too far behind; the hub then drops the stream.
    func send(_ event: TreeEvent, frame: [UInt8]) -> Bool
    /// The first `put` (`bytes` long) would not fit in the stream's `capacity`: tell the client why, before the
    /// hub sends `cancel` and closes the stream.
    func refuseOversized(location: TreePath, bytes: Int, capacity: Int)
    /// Ends the stream after what is queued. Idempotent.
    func close()
}

/// What a tree stream asked for: where it listens, how, and as whom.
public struct TreeListenRequest: Sendable {
    /// The database (namespace).
    public var namespace: String
    /// The listened location.
    public var location: TreePath
    /// The query, when the stream was opened with one: it then only ever sees its window.
    public var query: TreeQuery?
    /// `format=export` streams carry priorities.
    public var format: TreeFormat
    /// The caller, for access checks; `nil` for an unauthenticated one.
    public var auth: AuthContext?
    /// Re-checks the caller's credential (revocation, a disabled or deleted account) before every delivery and
    /// keep-alive; `nil` when there is none to re-check.
    public var credentialStillValid: (@Sendable () -> Bool)?

    /// A request.
    public init(
        namespace: String, location: TreePath, query: TreeQuery? = nil, format: TreeFormat = .plain,
        auth: AuthContext? = nil, credentialStillValid: (@Sendable () -> Bool)? = nil
    ) {
        self.namespace = namespace
        self.location = location
        self.query = query
        self.format = format
        self.auth = auth
        self.credentialStillValid = credentialStillValid
    }
}

/// Judges whether a tree stream may still read its location; asked when it opens, with every change it would
/// receive (the rules can depend on data that very change wrote), at each keep-alive and after the rules change.
public protocol TreeListenAuthorizer: Sendable {
    /// Whether `request`'s caller may read its location (with its query) now.
    /// - Throws: when the data the rules read cannot be read; the hub treats that as a refusal.
    func canRead(_ request: TreeListenRequest) throws(HearthError) -> Bool
}

/// Lets every stream read (no rules).
public struct AllowAllTreeListenAuthorizer: TreeListenAuthorizer {
    /// The authorizer.
    public init() {}

    /// Always `true`.
    public func canRead(_ request: TreeListenRequest) throws(HearthError) -> Bool { true }
}

/// Something the tree hub could not do, for the server's log (it never carries paths or data).
public enum TreeListenProblem: Sendable, Equatable {
    /// A stream's first read failed; the stream was closed.
    case snapshotFailed(HearthError)
    /// Judging a stream's access failed; the stream got `cancel`.
    case accessCheckFailed(HearthError)
    /// Reading the change log to catch up failed; the hub tries again on its next pass.
    case catchUpFailed(HearthError)
}
