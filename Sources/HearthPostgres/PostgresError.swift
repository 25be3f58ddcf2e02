/// An error from PostgreSQL or libpq, carrying the server's SQLSTATE when there is one.
///
/// `description` never prints bound values or row data (STYLE.md: redact by default); the server's message may name
/// a constraint or a column, which is what an operator needs to act on it.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is, so callers decide without parsing messages.
    public enum Kind: Sendable, Equatable {
        /// Could not open a connection (bad conninfo, server down, authentication refused).
        case connectFailed
        /// The connection broke while in use; the connection is unusable and must be replaced.
        case connectionLost
        /// SQLSTATE 40001: a serializable transaction lost a conflict; retry the whole transaction.
        case serializationFailure
        /// SQLSTATE 40P01: chosen as a deadlock victim; retry the whole transaction.
        case deadlock
        /// SQLSTATE 23505: a unique or primary-key constraint refused the row.
        case uniqueViolation
        /// Any other server error; see `sqlState`.
        case server
        /// A result value could not be read as the type asked for.
        case decoding
        /// A parameter PostgreSQL cannot take, refused before anything was sent (text with a NUL character).
        case invalidParameter
    }

    /// The kind of failure.
    public let kind: Kind
    /// The five-character SQLSTATE, when the server sent one.
    public let sqlState: String?
    /// The server's or libpq's message, without bound values.
    public let message: String

    /// Makes an error; `sqlState` decides the kind for server errors.
    public init(kind: Kind, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    /// Classifies a server error by its SQLSTATE. Class 08 (connection exception) and 57P01–57P03 (the server is
    /// shutting down or restarting) mean this connection is gone.
    static func fromServer(sqlState: String?, message: String) -> PostgresError {
        let kind: Kind
        switch sqlState {
        case "40001": kind = .serializationFailure
        case "40P01": kind = .deadlock
        case "23505": kind = .uniqueViolation
        case "57P01", "57P02", "57P03": kind = .connectionLost
        case let state? where state.hasPrefix("08"): kind = .connectionLost
        default: kind = .server
        }
        return PostgresError(kind: kind, sqlState: sqlState, message: message)
    }

    /// Whether retrying the whole transaction may succeed.
    public var isRetryable: Bool { kind == .serializationFailure || kind == .deadlock }

    /// A one-line summary: kind, SQLSTATE and message.
    public var description: String {
        "PostgresError(\(kind)\(sqlState.map { ", SQLSTATE \($0)" } ?? ""): \(message))"
    }
}
