import Synchronization

/// The lines a logger wrote, kept in memory: the sink tests hand a logger to see what a module reported.
public final class LogCapture: Sendable {
    private let captured = Mutex<[String]>([])

    /// An empty capture.
    public init() {}

    /// A logger at `level` writing here.
    public func logger(level: Logger.Level = .debug) -> Logger {
        Logger(level: level) { [self] line in captured.withLock { $0.append(line) } }
    }

    /// Every line so far, oldest first.
    public var lines: [String] { captured.withLock { $0 } }

    /// The lines whose message is `message`.
    public func lines(withMessage message: String) -> [String] {
        var quoted = ""
        Logger.appendQuoted(message, to: &quoted)
        return lines.filter { $0.contains("\"msg\":\(quoted)") }
    }
}
