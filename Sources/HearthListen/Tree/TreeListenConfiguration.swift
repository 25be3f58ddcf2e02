/// Limits and timings of the tree's listener hub.
public struct TreeListenConfiguration: Sendable, Equatable {
    /// How often every stream gets a `keep-alive` (and its access and credential are judged again): 30 s, as
    /// Firebase's.
    public var keepAliveInterval: Duration = .seconds(30)
    /// Tree changes waiting for the hub beyond this are dropped from memory and re-read from the change log. Keep it
    /// well below the log's retention (100,000 entries in the SQLite engine), so what is dropped is still there to
    /// re-read; past that the hub sends each stream its location afresh.
    public var maxQueuedRecords: Int = 50_000
    /// Change-log entries read per page while catching up.
    public var logPageSize: Int = 1000

    /// The defaults.
    public init() {}
}

/// Counters of the tree's listener hub, for `/metrics` and tests.
public struct TreeListenStatistics: Sendable, Equatable {
    /// Open streams.
    public var listeners = 0
    /// The last change-log sequence delivered to every stream.
    public var sequence: Int64 = 0
    /// Changes processed.
    public var changesProcessed = 0
    /// Events queued to streams (first `put`s and changes).
    public var eventsSent = 0
    /// Keep-alives sent.
    public var keepAlivesSent = 0
    /// Streams dropped because their client did not keep up (or went away).
    public var streamsCutOff = 0
    /// Streams ended with `cancel` or `auth_revoked`.
    public var streamsRefused = 0
    /// Times the hub fell behind the feed and re-read the change log.
    public var catchUps = 0
    /// Times the log no longer held what the hub had missed, and every stream was sent its location afresh.
    public var resynchronizations = 0

    /// Zeroes.
    public init() {}
}
