public import Hearth

/// Signing in for the example apps.
public enum TodoAccount {
    /// Signs `email` in, creating the account the first time.
    public static func signIn(_ auth: Auth, email: String, password: String) async throws -> User {
        do {
            return try await auth.signIn(withEmail: email, password: password).user
        } catch let error as AuthErrorCode where [.userNotFound, .invalidCredential].contains(error.code) {
            // With enumeration protection an unknown email answers invalidCredential, like a wrong password.
            do {
                return try await auth.createUser(withEmail: email, password: password).user
            } catch let created as AuthErrorCode where created.code == .emailAlreadyInUse {
                throw error
            }
        }
    }
}
