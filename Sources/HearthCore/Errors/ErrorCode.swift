/// The canonical error codes of google.rpc.Code, shared by the server and the SDK.
///
/// Firestore reports every failure with one of these; the HTTP status each maps to follows Google's API
/// design guide so that Firebase clients interpret Hearth's errors as they do Firestore's.
public struct ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The numeric google.rpc.Code value.
    public let rawValue: Int
    /// The status name as it appears in the `status` field of an error body (`"NOT_FOUND"`).
    public let name: String
    /// The HTTP status that carries this code.
    public let httpStatus: Int

    private init(_ rawValue: Int, _ name: String, _ httpStatus: Int) {
        self.rawValue = rawValue
        self.name = name
        self.httpStatus = httpStatus
    }

    /// The code's name, e.g. `NOT_FOUND`.
    public var description: String { name }

    /// Not an error; returned on success.
    public static let ok = ErrorCode(0, "OK", 200)
    /// The operation was cancelled, typically by the caller.
    public static let cancelled = ErrorCode(1, "CANCELLED", 499)
    /// Unknown error.
    public static let unknown = ErrorCode(2, "UNKNOWN", 500)
    /// The client specified an invalid argument.
    public static let invalidArgument = ErrorCode(3, "INVALID_ARGUMENT", 400)
    /// The deadline expired before the operation could complete.
    public static let deadlineExceeded = ErrorCode(4, "DEADLINE_EXCEEDED", 504)
    /// Some requested entity was not found.
    public static let notFound = ErrorCode(5, "NOT_FOUND", 404)
    /// The entity that a client attempted to create already exists.
    public static let alreadyExists = ErrorCode(6, "ALREADY_EXISTS", 409)
    /// The caller does not have permission to execute the operation.
    public static let permissionDenied = ErrorCode(7, "PERMISSION_DENIED", 403)
    /// Some resource has been exhausted (a quota or a rate limit).
    public static let resourceExhausted = ErrorCode(8, "RESOURCE_EXHAUSTED", 429)
    /// The system is not in a state required for the operation (a failed precondition).
    public static let failedPrecondition = ErrorCode(9, "FAILED_PRECONDITION", 400)
    /// The operation was aborted, typically by a concurrency conflict; the client may retry.
    public static let aborted = ErrorCode(10, "ABORTED", 409)
    /// The operation was attempted past the valid range.
    public static let outOfRange = ErrorCode(11, "OUT_OF_RANGE", 400)
    /// The operation is not implemented or not supported.
    public static let unimplemented = ErrorCode(12, "UNIMPLEMENTED", 501)
    /// An internal invariant was broken.
    public static let `internal` = ErrorCode(13, "INTERNAL", 500)
    /// The service is currently unavailable; the client may retry.
    public static let unavailable = ErrorCode(14, "UNAVAILABLE", 503)
    /// Unrecoverable data loss or corruption.
    public static let dataLoss = ErrorCode(15, "DATA_LOSS", 500)
    /// The request does not have valid authentication credentials.
    public static let unauthenticated = ErrorCode(16, "UNAUTHENTICATED", 401)

    /// Every code, in numeric order.
    public static let all: [ErrorCode] = [
        .ok, .cancelled, .unknown, .invalidArgument, .deadlineExceeded, .notFound, .alreadyExists,
        .permissionDenied, .resourceExhausted, .failedPrecondition, .aborted, .outOfRange, .unimplemented,
        .internal, .unavailable, .dataLoss, .unauthenticated,
    ]

    /// The code with the given status name, if any.
    public init?(name: String) {
        guard let code = Self.all.first(where: { $0.name == name }) else { return nil }
        self = code
    }
}
