/// Something that delivers email: the dev `Outbox`, or `SMTPMailer`.
///
/// `send` blocks until the message is handed over (an SMTP conversation can take seconds), so callers run it on a
/// background queue, never on an HTTP thread.
public protocol Mailer: Sendable {
    /// Delivers `message`, or throws why it could not.
    func send(_ message: MailMessage) throws(MailError)
}
