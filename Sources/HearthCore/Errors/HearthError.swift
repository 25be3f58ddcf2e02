/// An error with a canonical code and a message a person can act on.
///
/// This is the one error type that crosses module boundaries in Hearth: the store, the document API and the
/// SDK all speak it, and the HTTP layer renders it as google.rpc.Status JSON.
public struct HearthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The canonical code.
    public var code: ErrorCode
    /// The human-readable message. It never contains document data, tokens or passwords.
    public var message: String

    /// Creates an error with a code and a message.
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `CODE: message`.
    public var description: String { "\(code.name): \(message)" }

    /// An `INVALID_ARGUMENT` error.
    public static func invalidArgument(_ message: String) -> HearthError { HearthError(.invalidArgument, message) }
    /// A `NOT_FOUND` error.
    public static func notFound(_ message: String) -> HearthError { HearthError(.notFound, message) }
    /// An `ALREADY_EXISTS` error.
    public static func alreadyExists(_ message: String) -> HearthError { HearthError(.alreadyExists, message) }
    /// A `FAILED_PRECONDITION` error.
    public static func failedPrecondition(_ message: String) -> HearthError {
        HearthError(.failedPrecondition, message)
    }
    /// An `INTERNAL` error.
    public static func `internal`(_ message: String) -> HearthError { HearthError(.internal, message) }
}
