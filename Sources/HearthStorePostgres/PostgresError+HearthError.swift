import HearthCore
internal import HearthPostgres

extension PostgresError {
    /// Whether the connection is gone (the server restarted, or cannot be reached): another may work.
    var isConnectionFailure: Bool { kind == .connectionLost || kind == .connectFailed }
}

/// How the engine answers a failure: its own errors as they are, a server out of reach as `UNAVAILABLE` (the client
/// retries), a value PostgreSQL cannot hold as `INVALID_ARGUMENT`, a lost conflict as `ABORTED`, anything else as
/// `INTERNAL`.
func hearthError(_ error: any Error, doing what: String) -> HearthError {
    switch error {
    case let error as HearthError:
        return error
    case let error as PostgresError where error.isConnectionFailure:
        return HearthError(.unavailable, "PostgreSQL is unreachable while \(what); retry: \(error.message)")
    case let error as PostgresError where error.kind == .invalidParameter:
        return .invalidArgument("The PostgreSQL engine cannot store this while \(what): \(error.message).")
    case let error as PostgresError where error.isRetryable:
        return HearthError(.aborted, "A concurrent commit conflicted while \(what); retry.")
    default:
        return .internal("PostgreSQL failed while \(what): \(error)")
    }
}
