import Foundation
import Hearth
import HearthTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Auth against a real server", .sharedServer)
struct AuthIntegrationTests {
    @Test func signUpSignInRefreshSignOut() async throws {
        let server = try SharedServer.server
        let auth = Auth.auth(app: server.app())
        let email = uniqueEmail()
        let created = try await auth.createUser(withEmail: email, password: "correct horse")
        #expect(created.user.email == email)
        #expect(!created.user.isEmailVerified)
        #expect(!created.user.isAnonymous)
        let uid = created.user.uid
        let first = try await created.user.getIDToken()
        let refreshed = try await created.user.getIDToken(forcingRefresh: true)
        #expect(!first.isEmpty && !refreshed.isEmpty)
        try auth.signOut()
        #expect(auth.currentUser == nil)
        let signedIn = try await auth.signIn(withEmail: email, password: "correct horse")
        #expect(signedIn.user.uid == uid)
        #expect(auth.currentUser?.uid == uid)
    }

    @Test func errorsMapToCodes() async throws {
        let server = try SharedServer.server
        let auth = Auth.auth(app: server.app())
        let email = uniqueEmail()
        try await auth.createUser(withEmail: email, password: "correct horse")
        do {
            try await auth.createUser(withEmail: email, password: "correct horse")
            Issue.record("a taken email must fail")
        } catch AuthErrorCode.emailAlreadyInUse {}
        do {
            try await auth.signIn(withEmail: email, password: "wrong password")
            Issue.record("a wrong password must fail")
        } catch let error as AuthErrorCode {
            #expect(error.code == .wrongPassword || error.code == .invalidCredential)
        }
        do {
            try await auth.signIn(withEmail: uniqueEmail(), password: "whatever1")
            Issue.record("an unknown email must fail")
        } catch let error as AuthErrorCode {
            #expect(error.code == .userNotFound || error.code == .invalidCredential)
        }
        do {
            try await auth.createUser(withEmail: uniqueEmail(), password: "123")
            Issue.record("a weak password must fail")
        } catch let error as AuthErrorCode {
            #expect(error.code == .weakPassword)
        }
        do {
            try await auth.createUser(withEmail: "not-an-email", password: "correct horse")
            Issue.record("a malformed email must fail")
        } catch let error as AuthErrorCode {
            #expect(error.code == .invalidEmail)
        }
    }

    @Test func anonymousAndCustomTokenSignIn() async throws {
        let server = try SharedServer.server
        let auth = Auth.auth(app: server.app())
        let anonymous = try await auth.signInAnonymously()
        #expect(anonymous.user.isAnonymous)
        #expect(anonymous.user.email == nil)
        let again = try await auth.signInAnonymously()
        #expect(again.user.uid == anonymous.user.uid)
        // Dev mode accepts unsigned custom tokens, as the Firebase emulator does.
        let uid = "custom-\(UUID().uuidString.prefix(8))"
        let now = Int(Date().timeIntervalSince1970)
        let token = fakeJWT([
            "iss": "sdk-test@example.com", "sub": "sdk-test@example.com",
            "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
            "uid": uid, "iat": now, "exp": now + 3600,
        ])
        let custom = try await auth.signIn(withCustomToken: token)
        #expect(custom.user.uid == uid)
        await #expect(throws: AuthErrorCode.self) { try await auth.signIn(withCustomToken: "garbage") }
    }

    @Test func verificationReloadPasswordChangeAndDelete() async throws {
        let server = try SharedServer.server
        let app = server.app()
        let auth = Auth.auth(app: app)
        let email = uniqueEmail()
        let user = try await auth.createUser(withEmail: email, password: "correct horse").user
        try await user.sendEmailVerification()
        let code = try #require(try await server.oobCode(for: email, type: "VERIFY_EMAIL"))
        // Follow the link as the user's mail client would.
        var components = URLComponents(
            url: server.baseURL.appendingPathComponent("emulator/action"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            .init(name: "mode", value: "verifyEmail"), .init(name: "oobCode", value: code),
            .init(name: "apiKey", value: "test"),
        ]
        _ = try await URLSession.shared.data(from: components.url!)
        try await user.reload()
        #expect(user.isEmailVerified)

        try await user.updateDisplayName(to: "Ann")
        try await user.reload()
        #expect(user.displayName == "Ann")

        try await user.updatePassword(to: "battery staple")
        try auth.signOut()
        await #expect(throws: AuthErrorCode.self) { try await auth.signIn(withEmail: email, password: "correct horse") }
        let again = try await auth.signIn(withEmail: email, password: "battery staple").user
        #expect(again.isEmailVerified, "a sign-in knows the address was verified (the answer itself does not say)")

        try await auth.sendPasswordReset(withEmail: email)
        let reset = try #require(try await server.oobCode(for: email, type: "PASSWORD_RESET"))
        try await auth.confirmPasswordReset(withCode: reset, newPassword: "third password")
        _ = again

        let current = try await auth.signIn(withEmail: email, password: "third password").user
        try await current.delete()
        #expect(auth.currentUser == nil)
        do {
            try await auth.signIn(withEmail: email, password: "third password")
            Issue.record("a deleted account must not sign in")
        } catch let error as AuthErrorCode {
            #expect(error.code == .userNotFound || error.code == .invalidCredential)
        }
    }

    @Test func sessionSurvivesRelaunch() async throws {
        let server = try SharedServer.server
        let app = server.app()
        let email = uniqueEmail()
        let uid = try await Auth.auth(app: app).createUser(withEmail: email, password: "correct horse").user.uid
        // A relaunch: the same name and storage, a fresh app object.
        let name = app.name
        app.delete()
        HearthApp.configure(name: name, options: app.options)
        let relaunched = try #require(HearthApp.app(name: name))
        let user = try #require(Auth.auth(app: relaunched).currentUser)
        #expect(user.uid == uid)
        _ = try await user.getIDToken(forcingRefresh: true)
    }

    @Test func useEmulatorRedirectsRequests() async throws {
        let server = try SharedServer.server
        let name = "emulator-\(UUID().uuidString.prefix(6))"
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: URL(string: "http://127.0.0.1:1")!, projectID: "demo",
                storageDirectory: server.directory.appendingPathComponent("clients/emulator-\(UUID().uuidString)")))
        let app = try #require(HearthApp.app(name: name))
        let auth = Auth.auth(app: app)
        auth.useEmulator(withHost: "127.0.0.1", port: server.port)
        let result = try await auth.signInAnonymously()
        #expect(!result.user.uid.isEmpty)
    }
}
