/// Limits and timings of the listener hub.
public struct ListenConfiguration: Sendable, Equatable {
    /// How long a session may go without any bytes before it gets a heartbeat. Heartbeats keep proxies from
    /// closing idle streams and are how the server notices a client that went away.
    public var heartbeatInterval: Duration = .seconds(15)
    /// The most targets one session may hold.
    public var maxTargetsPerSession: Int = 1000
    /// The most sessions at once.
    public var maxSessions: Int = 100_000
    /// A resume token further back than this many change-log records is answered with a full reset instead of a
    /// replay (replaying would cost more than resending the results).
    public var maxResumeRecords: Int = 50_000
    /// Change records waiting for the hub beyond this are dropped from memory and re-read from the change log.
    public var maxQueuedRecords: Int = 200_000
    /// The largest initial result (or resume difference) one target may queue at once, in encoded bytes. A larger
    /// one removes the target with `RESOURCE_EXHAUSTED` rather than overflowing its stream's buffer (which would
    /// cut the whole session off). Keep it below the transport's per-stream buffer.
    public var maxSnapshotBytes: Int = 4 << 20
    /// Change-log records read per page.
    public var logPageSize: Int = 1000

    /// The defaults.
    public init() {}
}
