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
        /// Another account has the provider's email address: sign in to it and link the pending credential
        /// (``AuthErrorCode/updatedCredential``) — the address is in ``AuthErrorCode/email``.
        case accountExistsWithDifferentCredential = 17012
        /// The operation needs a recent sign-in.
        case requiresRecentLogin = 17014
        /// The account already has an identity at this provider.
        case providerAlreadyLinked = 17015
        /// The account has no identity at this provider to unlink.
        case noSuchProvider = 17016
        /// The user's tokens are no longer valid; sign in again.
        case invalidUserToken = 17017
        /// The server could not be reached.
        case networkError = 17020
        /// The user's session expired or was revoked; sign in again.
        case userTokenExpired = 17021
        /// The provider identity is already linked to another account.
        case credentialAlreadyInUse = 17025
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
        /// The sign-in in the browser was not finished (closed, or it did not come back in time).
        case webContextCancelled = 17058
        /// The provider ID is not one the server knows.
        case invalidProviderID = 17071
        /// The raw nonce does not match the ID token's nonce, or one of them is missing.
        case missingOrInvalidNonce = 17094
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

    /// With ``Code/accountExistsWithDifferentCredential``: the address the other account has.
    public let email: String?
    /// With ``Code/accountExistsWithDifferentCredential``: the provider credential to link once signed in to that
    /// account.
    public let updatedCredential: AuthCredential?

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.init(code, message, email: nil, updatedCredential: nil)
    }

    /// Creates an error carrying the address and pending credential of "account exists with different credential".
    init(_ code: Code, _ message: String, email: String?, updatedCredential: AuthCredential?) {
        self.code = code
        self.message = message
        self.email = email
        self.updatedCredential = updatedCredential
    }

    /// Equal when code, message and address are (the credential is not compared).
    public static func == (lhs: AuthErrorCode, rhs: AuthErrorCode) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.email == rhs.email
    }

    /// Hashes code, message and address.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(email)
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
    /// `accountExistsWithDifferentCredential`.
    public static let accountExistsWithDifferentCredential = Code.accountExistsWithDifferentCredential
    /// `credentialAlreadyInUse`.
    public static let credentialAlreadyInUse = Code.credentialAlreadyInUse
    /// `providerAlreadyLinked`.
    public static let providerAlreadyLinked = Code.providerAlreadyLinked
    /// `noSuchProvider`.
    public static let noSuchProvider = Code.noSuchProvider
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
            case "FEDERATED_USER_ID_ALREADY_LINKED": .credentialAlreadyInUse
            case "PROVIDER_ALREADY_LINKED": .providerAlreadyLinked
            case "NO_SUCH_PROVIDER": .noSuchProvider
            case "INVALID_PROVIDER_ID": .invalidProviderID
            case "MISSING_OR_INVALID_NONCE": .missingOrInvalidNonce
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
