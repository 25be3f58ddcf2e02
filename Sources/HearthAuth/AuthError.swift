/// An Identity Toolkit error: a code such as `EMAIL_EXISTS`, an optional detail, and the HTTP status.
///
/// Rendered as `{"error":{"code":400,"message":"CODE : detail","errors":[…]}}`, the envelope Firebase's SDKs parse:
/// they split `message` at the first colon and map the code to their own error types. Details never contain
/// passwords, tokens or codes.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The machine-readable code, e.g. `INVALID_PASSWORD`.
    public var code: String
    /// Extra explanation after `" : "`, when Firebase has one.
    public var detail: String?
    /// The HTTP status: 400 for almost everything, as Identity Toolkit does.
    public var status: Int
    /// The google.rpc status name (`PERMISSION_DENIED`, …); `nil` for plain 400s, which Identity Toolkit leaves out.
    public var statusName: String?
    /// The `reason` of the single entry in `errors`.
    public var reason: String

    /// An error with `code`, an optional detail, and its HTTP status.
    public init(
        _ code: String, _ detail: String? = nil, status: Int = 400, statusName: String? = nil,
        reason: String = "invalid"
    ) {
        self.code = code
        self.detail = detail
        self.status = status
        self.statusName = statusName
        self.reason = reason
    }

    /// `CODE` or `CODE : detail`.
    public var message: String { detail.map { "\(code) : \($0)" } ?? code }

    /// The same as `message`.
    public var description: String { message }
}

extension AuthError {
    static let emailExists = AuthError("EMAIL_EXISTS")
    static let invalidEmail = AuthError("INVALID_EMAIL")
    static let missingEmail = AuthError("MISSING_EMAIL")
    static let missingPassword = AuthError("MISSING_PASSWORD")
    static let emailNotFound = AuthError("EMAIL_NOT_FOUND")
    static let invalidPassword = AuthError("INVALID_PASSWORD")
    static let invalidLoginCredentials = AuthError("INVALID_LOGIN_CREDENTIALS")
    static let userDisabled = AuthError("USER_DISABLED")
    static let userNotFound = AuthError("USER_NOT_FOUND")
    static let invalidIDToken = AuthError("INVALID_ID_TOKEN")
    static let missingIDToken = AuthError("MISSING_ID_TOKEN")
    static let tokenExpired = AuthError("TOKEN_EXPIRED")
    static let invalidOobCode = AuthError("INVALID_OOB_CODE")
    static let expiredOobCode = AuthError("EXPIRED_OOB_CODE")
    static let missingOobCode = AuthError("MISSING_OOB_CODE")
    static let invalidRefreshToken = AuthError("INVALID_REFRESH_TOKEN")
    static let missingRefreshToken = AuthError("MISSING_REFRESH_TOKEN")
    static let tooManyAttempts = AuthError("TOO_MANY_ATTEMPTS_TRY_LATER")
    static let missingLocalID = AuthError("MISSING_LOCAL_ID")
    static let duplicateLocalID = AuthError("DUPLICATE_LOCAL_ID")
    static let insufficientPermission = AuthError("INSUFFICIENT_PERMISSION")
    static let phoneNumberExists = AuthError("PHONE_NUMBER_EXISTS")

    /// `WEAK_PASSWORD : Password should be at least N characters`.
    static func weakPassword(minimum: Int) -> AuthError {
        AuthError("WEAK_PASSWORD", "Password should be at least \(minimum) characters")
    }

    /// `INVALID_CUSTOM_TOKEN : detail`.
    static func invalidCustomToken(_ detail: String) -> AuthError { AuthError("INVALID_CUSTOM_TOKEN", detail) }

    /// A request the server cannot serve because the storage failed; the detail is for logs, not clients.
    package static func `internal`(_ detail: String) -> AuthError {
        AuthError("INTERNAL_ERROR", detail, status: 500, statusName: "INTERNAL", reason: "backendError")
    }

    /// A 501 for an Identity Toolkit feature Hearth does not implement.
    public static func notImplemented(_ what: String) -> AuthError {
        AuthError(what, nil, status: 501, statusName: "NOT_IMPLEMENTED", reason: "unimplemented")
    }
}
