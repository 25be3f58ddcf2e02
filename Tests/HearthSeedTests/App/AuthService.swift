// Seed app code as written against the Firebase iOS SDK; the only change is the import
// (was: `import FirebaseAuth`).
import Foundation
import Hearth

/// Sign-up, log-in and log-out of the seed apps.
struct AuthService: Sendable {
    var currentUserID: String? { Auth.auth().currentUser?.uid }
    var currentUserName: String? { Auth.auth().currentUser?.displayName }

    @discardableResult
    func signUp(email: String, password: String, name: String) async throws -> String {
        let result = try await Auth.auth().createUser(withEmail: email, password: password)
        let changeRequest = result.user.createProfileChangeRequest()
        changeRequest.displayName = name
        try await changeRequest.commitChanges()
        return result.user.uid
    }

    @discardableResult
    func logIn(email: String, password: String) async throws -> String {
        try await Auth.auth().signIn(withEmail: email, password: password).user.uid
    }

    /// Sends the verification mail to the signed-in user, as the chat's sign-up screen does.
    func sendVerification() async throws {
        try await Auth.auth().currentUser?.sendEmailVerification()
    }

    /// Whether the signed-in user opened the verification link (the account is reloaded first).
    func isVerified() async throws -> Bool {
        try await Auth.auth().currentUser?.reload()
        return Auth.auth().currentUser?.isEmailVerified ?? false
    }

    func logOut() throws {
        try Auth.auth().signOut()
    }

    /// A readable message for the errors the log-in screen shows.
    func message(for error: any Error) -> String {
        guard let error = error as? AuthErrorCode else { return "Something went wrong." }
        switch error.code {
        case .wrongPassword, .invalidCredential: return "Wrong email or password."
        case .userNotFound: return "No account for this email."
        case .emailAlreadyInUse: return "This email is already registered."
        case .weakPassword: return "Choose a longer password."
        default: return error.localizedDescription
        }
    }
}
