#if canImport(SwiftUI)
import SwiftUI

/// Email and password; the account is created the first time.
struct SignInView: View {
    let session: TodoSession
    @State private var email = ""
    @State private var password = ""
    @State private var busy = false

    var body: some View {
        Form {
            TextField("Email", text: $email)
            SecureField("Password", text: $password)
            Button("Sign in") {
                busy = true
                Task {
                    await session.signIn(email: email, password: password)
                    busy = false
                }
            }
            .disabled(busy || email.isEmpty || password.isEmpty)
            if let failure = session.failure { Text(failure).foregroundStyle(.red) }
        }
        .padding()
    }
}
#endif
