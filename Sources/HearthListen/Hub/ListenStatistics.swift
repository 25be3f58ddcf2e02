/// Counters of the listener hub, for `/metrics` and tests.
public struct ListenStatistics: Sendable, Equatable {
    /// Open sessions.
    public var sessions = 0
    /// Targets across sessions.
    public var targets = 0
    /// Distinct live queries (targets with equal queries share one).
    public var queryViews = 0
    /// Documents watched by document targets.
    public var watchedDocuments = 0
    /// The change-log position every target has reached.
    public var sequence: Int64 = 0
    /// Change records processed.
    public var changesProcessed = 0
    /// Responses queued to sessions.
    public var responsesSent = 0
    /// Heartbeats sent.
    public var heartbeatsSent = 0
    /// Sessions cut off because their client did not keep up (or went away).
    public var sessionsCutOff = 0
    /// Sessions ended because their credential stopped verifying (expired, revoked, account disabled or deleted).
    public var sessionsRevoked = 0
    /// Times the hub fell behind the feed and re-read the change log.
    public var catchUps = 0

    /// Zeroes.
    public init() {}
}
