import Dispatch
import HearthLog
import HearthMail

/// Sends mail off the request path, one message at a time, retrying transport failures twice (after 2 s and 10 s).
///
/// The request that caused a message has already committed its state (the code exists) and answered; a message
/// that cannot be delivered is logged — with its kind, never its address or link — and the user can ask again.
final class MailDispatcher: Sendable {
    let mailer: any Mailer
    private let queue = DispatchQueue(label: "hearth.accounts.mail")
    private let logger: Logger
    private let retryDelays: [Double]

    init(mailer: any Mailer, logger: Logger, retryDelays: [Double] = [2, 10]) {
        self.mailer = mailer
        self.logger = logger
        self.retryDelays = retryDelays
    }

    /// Queues `message`; `kind` (e.g. `PASSWORD_RESET`) is what the log lines name.
    func enqueue(_ message: MailMessage, kind: String) {
        queue.async { self.attempt(message, kind: kind, attempt: 0) }
    }

    /// Waits until every message queued so far has had its first attempt; for tests and shutdown.
    func drain() {
        queue.sync {}
    }

    private func attempt(_ message: MailMessage, kind: String, attempt: Int) {
        do {
            try mailer.send(message)
            log(.debug, "mail sent", ["kind": kind, "attempt": String(attempt + 1)])
        } catch {
            let reason = Self.redacted(error.description)
            guard error.kind == .transport, attempt < retryDelays.count else {
                log(.error, "mail not sent", ["kind": kind, "attempts": String(attempt + 1), "reason": reason])
                return
            }
            log(
                .warning, "mail send failed; retrying",
                ["kind": kind, "attempt": String(attempt + 1), "reason": reason])
            queue.asyncAfter(deadline: .now() + retryDelays[attempt]) {
                self.attempt(message, kind: kind, attempt: attempt + 1)
            }
        }
    }

    /// A transport error may quote the server's reply, which can echo the recipient: anything that looks like an
    /// address is blanked out before it reaches a log.
    static func redacted(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false)
            .map { $0.contains("@") ? "<redacted>" : String($0) }.joined(separator: " ")
    }
}

extension MailDispatcher {
    private func log(_ level: Logger.Level, _ message: String, _ metadata: [String: String]) {
        logger.log(level, message, metadata.mapValues { .string($0) })
    }
}
