import Hearth

/// Why a chat action did not happen, worded for the person using the app.
public enum ChatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message is empty (or only whitespace).
    case emptyMessage
    /// The message is longer than ``ChatPost/maxLength``.
    case messageTooLong
    /// The action needs a signed-in user.
    case notSignedIn
    /// Posting (and reading posts) needs a verified email address.
    case emailNotVerified
    /// No post with that ID is in the list (it may have been deleted on another device).
    case noSuchPost
    /// The development outbox holds no verification mail for this address.
    case noVerificationMail
    /// The avatar's file cannot be read (the path given).
    case unreadableFile(String)
    /// The accounts service refused: wrong password, address in use, weak password…
    case account(String)
    /// The server refused or could not be reached.
    case server(String)

    /// The sentence the UI shows.
    public var description: String {
        switch self {
        case .emptyMessage: "Write something first."
        case .messageTooLong: "A message has at most \(ChatPost.maxLength) characters."
        case .notSignedIn: "Sign in first."
        case .emailNotVerified: "Verify your email address before posting."
        case .noSuchPost: "That post is gone."
        case .noVerificationMail: "No verification mail for this address in the server's outbox (is it --dev?)."
        case .unreadableFile(let path): "No file to read at \(path)."
        case .account(let message), .server(let message): message
        }
    }

    /// Maps an SDK error to what the user should read.
    static func from(_ error: any Error) -> ChatError {
        switch error {
        case let error as ChatError:
            return error
        case let error as AuthErrorCode:
            switch error.code {
            case .emailAlreadyInUse: return .account("That email address already has an account: sign in instead.")
            case .invalidEmail: return .account("That is not a valid email address.")
            case .weakPassword: return .account("Choose a longer password (at least 6 characters).")
            case .wrongPassword, .invalidCredential, .userNotFound: return .account("Wrong email or password.")
            case .tooManyRequests: return .account("Too many attempts: wait a minute and try again.")
            case .userDisabled: return .account("This account is disabled.")
            case .networkError: return .server("The server cannot be reached.")
            default: return .account("The account service refused: \(error.message)")
            }
        case let error as FirestoreErrorCode:
            switch error.code {
            case .permissionDenied: return .server("The server's rules refused this (is your email verified?).")
            case .unavailable: return .server("The server cannot be reached.")
            default: return .server("The server refused: \(error.message)")
            }
        case let error as StorageError:
            switch error.code {
            case .unauthorized, .unauthenticated: return .server("The server's storage rules refused this.")
            case .quotaExceeded: return .server("The server has no room for this file.")
            default: return .server("The file could not be stored: \(error.message)")
            }
        default:
            return .server("\(error)")
        }
    }
}
