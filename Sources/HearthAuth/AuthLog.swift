/// Severity of an accounts log line.
public enum AuthLogLevel: Sendable {
    /// Per-request detail.
    case debug
    /// Lifecycle events.
    case info
    /// Something unexpected that the service survived (a mail that could not be sent).
    case warning
    /// A failure.
    case error
}

/// Where the accounts service writes log lines: a message and metadata. Callers never put emails, passwords,
/// tokens or codes in either (the one exception, development mode's outbox link, is documented where it is logged).
public typealias AuthLogger = @Sendable (_ level: AuthLogLevel, _ message: String, _ metadata: [String: String]) -> Void
