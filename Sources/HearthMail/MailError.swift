/// Why a message was not sent.
///
/// The description names the kind of failure and the transport's reason; it never contains the message body,
/// which carries one-time codes.
public struct MailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Kinds of failure.
    public enum Kind: Sendable, Equatable {
        /// The message cannot be sent as given (a header with a line break, no address).
        case invalidMessage
        /// The mail server could not be reached or refused the message.
        case transport
    }

    /// The kind of failure.
    public var kind: Kind
    /// What went wrong, for logs.
    public var reason: String

    /// An error of `kind` with `reason`.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The kind and reason, for logs; never the message body.
    public var description: String {
        switch kind {
        case .invalidMessage: "invalid message: \(reason)"
        case .transport: "mail transport failed: \(reason)"
        }
    }
}
