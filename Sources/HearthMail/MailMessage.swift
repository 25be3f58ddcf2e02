/// One outgoing email: a plain-text body and optionally an HTML alternative.
public struct MailMessage: Sendable, Equatable {
    /// The sender, `address@example.com` or `Name <address@example.com>`.
    public var from: String
    /// The recipient's address.
    public var to: String
    /// The subject line.
    public var subject: String
    /// The plain-text body.
    public var text: String
    /// The HTML body, sent as a `multipart/alternative` part after the text when present.
    public var html: String?

    /// A message from `from` to `to`.
    public init(from: String, to: String, subject: String, text: String, html: String? = nil) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// The bare address inside `from` (`Name <a@b>` → `a@b`), as SMTP's `MAIL FROM` needs it.
    public var senderAddress: String { Self.bareAddress(from) }

    /// The bare address of `to`.
    public var recipientAddress: String { Self.bareAddress(to) }

    static func bareAddress(_ text: String) -> String {
        if let open = text.lastIndex(of: "<"), let close = text.lastIndex(of: ">"), open < close {
            return String(text[text.index(after: open)..<close]).trimmingSpaces()
        }
        return text.trimmingSpaces()
    }

    /// Throws when a header field would carry a line break (header injection) or an address is empty.
    func validate() throws(MailError) {
        for (name, value) in [("From", from), ("To", to), ("Subject", subject)]
        where value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw MailError(.invalidMessage, "the \(name) header must not contain a line break")
        }
        guard senderAddress.contains("@") else {
            throw MailError(.invalidMessage, "the sender address is not an address")
        }
        guard recipientAddress.contains("@") else {
            throw MailError(.invalidMessage, "the recipient address is not an address")
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var view = Substring(self)
        while view.first?.isWhitespace == true { view.removeFirst() }
        while view.last?.isWhitespace == true { view.removeLast() }
        return String(view)
    }
}
