import Foundation
import HearthCore

/// A Firestore error, with one of the 16 canonical codes — Hearth's `FirestoreErrorCode`.
///
/// Match it as with Firebase: `catch let error as FirestoreErrorCode where error.code == .notFound`, or
/// `catch FirestoreErrorCode.notFound`. Bridged to `NSError` in domain ``errorDomain`` with ``Code-swift.enum``'s
/// raw value as the code.
public struct FirestoreErrorCode: CodedError {
    /// The canonical codes, with Firestore's numbering.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// The operation completed successfully (never thrown).
        case ok = 0
        /// The operation was cancelled.
        case cancelled = 1
        /// An unknown error.
        case unknown = 2
        /// The client passed an invalid argument.
        case invalidArgument = 3
        /// The deadline passed before the operation completed.
        case deadlineExceeded = 4
        /// The document was not found.
        case notFound = 5
        /// The document already exists.
        case alreadyExists = 6
        /// The caller may not perform the operation.
        case permissionDenied = 7
        /// A quota or limit was exhausted.
        case resourceExhausted = 8
        /// The system is not in the state the operation needs.
        case failedPrecondition = 9
        /// The operation was aborted, typically by a transaction conflict.
        case aborted = 10
        /// The operation went past the valid range.
        case outOfRange = 11
        /// The server does not implement the operation.
        case unimplemented = 12
        /// An internal error.
        case `internal` = 13
        /// The server is unreachable; retrying later may succeed.
        case unavailable = 14
        /// Unrecoverable data loss.
        case dataLoss = 15
        /// The request has no valid credentials.
        case unauthenticated = 16
    }

    /// The Firebase error domain, kept so code that inspects `NSError.domain` keeps working.
    public static let errorDomain = "FIRFirestoreErrorDomain"

    /// The code.
    public let code: Code
    /// What went wrong, as the server or the SDK described it.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `cancelled`.
    public static let cancelled = Code.cancelled
    /// `unknown`.
    public static let unknown = Code.unknown
    /// `invalidArgument`.
    public static let invalidArgument = Code.invalidArgument
    /// `deadlineExceeded`.
    public static let deadlineExceeded = Code.deadlineExceeded
    /// `notFound`.
    public static let notFound = Code.notFound
    /// `alreadyExists`.
    public static let alreadyExists = Code.alreadyExists
    /// `permissionDenied`.
    public static let permissionDenied = Code.permissionDenied
    /// `resourceExhausted`.
    public static let resourceExhausted = Code.resourceExhausted
    /// `failedPrecondition`.
    public static let failedPrecondition = Code.failedPrecondition
    /// `aborted`.
    public static let aborted = Code.aborted
    /// `outOfRange`.
    public static let outOfRange = Code.outOfRange
    /// `unimplemented`.
    public static let unimplemented = Code.unimplemented
    /// `internal`.
    public static let `internal` = Code.internal
    /// `unavailable`.
    public static let unavailable = Code.unavailable
    /// `dataLoss`.
    public static let dataLoss = Code.dataLoss
    /// `unauthenticated`.
    public static let unauthenticated = Code.unauthenticated
}

extension FirestoreErrorCode {
    /// Whether the request may succeed if sent again: the server could not be reached or was unavailable. Queued
    /// writes stay queued and listeners reconnect on such a failure; any other refusal is final.
    var isTransient: Bool { code == .unavailable }

    /// The SDK error for a core error (validation in HearthCore uses the same code set).
    init(_ error: HearthError) {
        self.init(Code(rawValue: error.code.rawValue) ?? .unknown, error.message)
    }

    /// Reads a google.rpc.Status body (`{"error":{"code":404,"message":"…","status":"NOT_FOUND"}}`), falling back to the
    /// HTTP status when the body is not one.
    init(status: Int, body: Data) {
        let json = try? JSONParser.parse(Array(body))
        let error = json?["error"]
        let message = error?["message"]?.stringValue ?? "HTTP status \(status)"
        if let name = error?["status"]?.stringValue, let core = ErrorCode(name: name),
            let code = Code(rawValue: core.rawValue)
        {
            self.init(code, message)
            return
        }
        let code: Code =
            switch status {
            case 400: .invalidArgument
            case 401: .unauthenticated
            case 403: .permissionDenied
            case 404: .notFound
            case 409: .aborted
            case 429: .resourceExhausted
            case 501: .unimplemented
            case 503: .unavailable
            case 504: .deadlineExceeded
            default: .internal
            }
        self.init(code, message)
    }
}

/// Matches `catch FirestoreErrorCode.<code>`: whether `error` is a ``FirestoreErrorCode`` with that code.
public func ~= (code: FirestoreErrorCode.Code, error: any Error) -> Bool {
    (error as? FirestoreErrorCode)?.code == code
}
