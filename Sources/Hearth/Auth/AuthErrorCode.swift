import Foundation

/// An authentication error — Hearth's `AuthErrorCode`, with Firebase's codes and numbering.
///
/// Match it with `catch let error as AuthErrorCode where error.code == .wrongPassword` or
/// `catch AuthErrorCode.wrongPassword`.
public struct AuthErrorCode: CodedError {
    /// The error codes, numbered as Firebase numbers them.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// The custom token is malformed or not signed by a registered key.
        case invalidCustomToken = 17000
        /// The custom token was minted for another audience.
        case customTokenMismatch = 17002
        /// The supplied credential is wrong (email and password, with enumeration protection on).
        case invalidCredential = 17004
        /// The account is disabled.
        case userDisabled = 17005
        /// The sign-in method is turned off on the server.
        case operationNotAllowed = 17006
        /// Another account already uses the email address.
        case emailAlreadyInUse = 17007
        /// The email address is malformed.
        case invalidEmail = 17008
        /// The password is wrong.
        case wrongPassword = 17009
        /// Too many attempts; try again later.
        case tooManyRequests = 17010
        /// No account has this email address, or the account was deleted.
        case userNotFound = 17011
        /// The operation needs a recent sign-in.
        case requiresRecentLogin = 17014
        /// The user's tokens are no longer valid; sign in again.
        case invalidUserToken = 17017
        /// The server could not be reached.
        case networkError = 17020
        /// The user's session expired or was revoked; sign in again.
        case userTokenExpired = 17021
        /// The API key was refused.
        case invalidAPIKey = 17023
        /// The password is too weak.
        case weakPassword = 17026
        /// The action code (verification or reset link) has expired.
        case expiredActionCode = 17029
        /// The action code is malformed or already used.
        case invalidActionCode = 17030
        /// An email address is required.
        case missingEmail = 17034
        /// The keychain or session file could not be read or written.
        case keychainError = 17995
        /// An unexpected server answer.
        case internalError = 17999
    }

    /// The Firebase error domain, kept for code that inspects `NSError.domain`.
    public static let errorDomain = "FIRAuthErrorDomain"

    /// The code.
    public let code: Code
    /// What went wrong; for server errors, the server's code and detail (never a password or token).
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `emailAlreadyInUse`.
    public static let emailAlreadyInUse = Code.emailAlreadyInUse
    /// `invalidEmail`.
    public static let invalidEmail = Code.invalidEmail
    /// `wrongPassword`.
    public static let wrongPassword = Code.wrongPassword
    /// `userNotFound`.
    public static let userNotFound = Code.userNotFound
    /// `weakPassword`.
    public static let weakPassword = Code.weakPassword
    /// `tooManyRequests`.
    public static let tooManyRequests = Code.tooManyRequests
    /// `invalidCredential`.
    public static let invalidCredential = Code.invalidCredential
    /// `networkError`.
    public static let networkError = Code.networkError
    /// `invalidUserToken`.
    public static let invalidUserToken = Code.invalidUserToken
    /// `userTokenExpired`.
    public static let userTokenExpired = Code.userTokenExpired
    /// `userDisabled`.
    public static let userDisabled = Code.userDisabled
    /// `invalidCustomToken`.
    public static let invalidCustomToken = Code.invalidCustomToken
    /// `requiresRecentLogin`.
    public static let requiresRecentLogin = Code.requiresRecentLogin
    /// `internalError`.
    public static let internalError = Code.internalError
}

extension AuthErrorCode {
    /// Maps an Identity Toolkit error message (`EMAIL_EXISTS`, `WEAK_PASSWORD : Password should be …`) to its code,
    /// as the Firebase SDK does.
    init(serverMessage: String) {
        let name = serverMessage.split(separator: " : ", maxSplits: 1).first.map(String.init) ?? serverMessage
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        let code: Code =
            switch trimmed {
            case "EMAIL_EXISTS": .emailAlreadyInUse
            case "INVALID_EMAIL": .invalidEmail
            case "INVALID_PASSWORD": .wrongPassword
            case "EMAIL_NOT_FOUND", "USER_NOT_FOUND": .userNotFound
            case "WEAK_PASSWORD": .weakPassword
            case "TOO_MANY_ATTEMPTS_TRY_LATER": .tooManyRequests
            case "USER_DISABLED": .userDisabled
            case "INVALID_LOGIN_CREDENTIALS", "INVALID_IDP_RESPONSE": .invalidCredential
            case "INVALID_ID_TOKEN", "INVALID_REFRESH_TOKEN", "MISSING_REFRESH_TOKEN": .invalidUserToken
            case "TOKEN_EXPIRED", "USER_TOKEN_EXPIRED": .userTokenExpired
            case "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": .requiresRecentLogin
            case "INVALID_CUSTOM_TOKEN": .invalidCustomToken
            case "CREDENTIAL_MISMATCH": .customTokenMismatch
            case "OPERATION_NOT_ALLOWED", "ADMIN_ONLY_OPERATION": .operationNotAllowed
            case "INVALID_API_KEY", "API_KEY_INVALID": .invalidAPIKey
            case "EXPIRED_OOB_CODE": .expiredActionCode
            case "INVALID_OOB_CODE": .invalidActionCode
            case "MISSING_EMAIL": .missingEmail
            case "MISSING_PASSWORD": .wrongPassword
            default: .internalError
            }
        self.init(code, serverMessage)
    }
}

/// Matches `catch AuthErrorCode.<code>`: whether `error` is a ``AuthErrorCode`` with that code.
public func ~= (code: AuthErrorCode.Code, error: any Error) -> Bool {
    (error as? AuthErrorCode)?.code == code
}
