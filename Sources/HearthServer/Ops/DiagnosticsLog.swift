import Foundation
import HearthLog
import Synchronization

/// Passes the HTTP layer's diagnostics to the log at most `perSecond` lines a second, counting the rest: each line
/// may be caused by a client (a refused connection, a cut-off stream), so a flood of them must not flood the log.
final class DiagnosticsLog: Sendable {
    private struct Window {
        var second: Int64 = 0
        var written = 0
        var suppressed = 0
    }

    private let logger: Logger
    private let perSecond: Int
    private let window = Mutex(Window())

    init(logger: Logger, perSecond: Int = 10) {
        self.logger = logger
        self.perSecond = perSecond
    }

    /// Logs `line` as a warning, or counts it when this second's share is spent; the count rides on the next line.
    func write(_ line: String) {
        let now = Int64(Date().timeIntervalSince1970)
        let suppressed = window.withLock { window -> Int? in
            if window.second != now {
                window.second = now
                window.written = 0
            }
            guard window.written < perSecond else {
                window.suppressed += 1
                return nil
            }
            window.written += 1
            defer { window.suppressed = 0 }
            return window.suppressed
        }
        guard let suppressed else { return }
        var metadata: [String: LogValue] = ["detail": .string(line)]
        if suppressed > 0 { metadata["suppressed"] = .int(suppressed) }
        logger.warning("http", metadata)
    }
}
