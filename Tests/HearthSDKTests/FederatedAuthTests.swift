import Foundation
import Hearth
import HearthTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Provider sign-in through the SDK against a development-mode server, which takes the claims a credential states
/// (as the Auth emulator does): `signIn(with:)`, "account exists with different credential", `link(with:)`,
/// `unlink(fromProvider:)` and `providerData`.
@Suite("Federated sign-in through the SDK", .sharedServer)
struct FederatedAuthTests {
    /// Claims a development-mode server accepts as an ID token.
    static func claims(sub: String, email: String? = nil, name: String? = nil) -> String {
        var fields = [#""sub":"\#(sub)""#]
        if let email { fields.append(#""email":"\#(email)","email_verified":true"#) }
        if let name { fields.append(#""name":"\#(name)""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    @Test func signInWithAProviderCredential() async throws {
        let auth = Auth.auth(app: try SharedServer.server.app())
        let sub = UUID().uuidString
        let email = uniqueEmail()
        let credential = GoogleAuthProvider.credential(
            withIDToken: Self.claims(sub: sub, email: email, name: "Grace"), accessToken: "google-access")
        let result = try await auth.signIn(with: credential)
        #expect(result.user.email == email)
        #expect(result.user.displayName == "Grace")
        #expect(result.user.isEmailVerified)
        #expect(!result.user.isAnonymous)
        #expect(result.additionalUserInfo?.isNewUser == true)
        #expect(result.additionalUserInfo?.providerID == "google.com")
        #expect(result.additionalUserInfo?.profile?["sub"] as? String == sub)
        #expect(result.credential?.accessToken == "google-access")
        #expect(result.user.providerData.map(\.providerID) == ["google.com"])
        #expect(result.user.providerData.first?.uid == sub)
        #expect(auth.currentUser?.uid == result.user.uid)
        try auth.signOut()
        let again = try await auth.signIn(with: credential)
        #expect(again.user.uid == result.user.uid)
        #expect(again.additionalUserInfo?.isNewUser == false)
        try auth.signOut()
    }

    @Test func accountExistsWithDifferentCredentialThenLinkAndUnlink() async throws {
        let auth = Auth.auth(app: try SharedServer.server.app())
        let email = uniqueEmail()
        let owner = try await auth.createUser(withEmail: email, password: "correct horse")
        try auth.signOut()
        let facebook = FacebookAuthProvider.credential(
            withAccessToken: Self.claims(sub: UUID().uuidString, email: email))
        var pending: AuthCredential?
        do {
            try await auth.signIn(with: facebook)
            Issue.record("a provider address that has an account must need confirmation")
        } catch let error as AuthErrorCode where error.code == .accountExistsWithDifferentCredential {
            #expect(error.email == email)
            pending = error.updatedCredential
        }
        #expect(auth.currentUser == nil)
        let credential = try #require(pending)
        #expect(credential.provider == "facebook.com")

        let signedIn = try await auth.signIn(withEmail: email, password: "correct horse")
        let linked = try await signedIn.user.link(with: credential)
        #expect(linked.user.uid == owner.user.uid)
        #expect(Set(linked.user.providerData.map(\.providerID)) == ["password", "facebook.com"])
        try auth.signOut()
        let viaFacebook = try await auth.signIn(with: facebook)
        #expect(viaFacebook.user.uid == owner.user.uid)

        let user = try await viaFacebook.user.unlink(fromProvider: "facebook.com")
        #expect(user.providerData.map(\.providerID) == ["password"])
        do {
            try await user.unlink(fromProvider: "facebook.com")
            Issue.record("unlinking a provider the account lacks must fail")
        } catch AuthErrorCode.noSuchProvider {}
        try auth.signOut()
    }

    @Test func linkingAnIdentityOfAnotherAccountFails() async throws {
        let auth = Auth.auth(app: try SharedServer.server.app())
        let github = GitHubAuthProvider.credential(withToken: Self.claims(sub: UUID().uuidString))
        try await auth.signIn(with: github)
        try auth.signOut()
        let other = try await auth.createUser(withEmail: uniqueEmail(), password: "correct horse")
        do {
            try await other.user.link(with: github)
            Issue.record("an identity linked elsewhere must not link again")
        } catch AuthErrorCode.credentialAlreadyInUse {}
        let apple = OAuthProvider.appleCredential(
            withIDToken: Self.claims(sub: UUID().uuidString), rawNonce: nil,
            fullName: PersonNameComponents(givenName: "Ada", familyName: "Lovelace"))
        let linked = try await other.user.link(with: apple)
        #expect(linked.user.displayName == "Ada Lovelace")
        #expect(Set(linked.user.providerData.map(\.providerID)) == ["password", "apple.com"])
        try auth.signOut()
    }

    /// A "browser" for the development picker: loads the page it is given and submits its new-account form; the
    /// redirect that follows lands on the SDK's loopback listener.
    struct PickerBrowser: AuthUIDelegate {
        let email: String
        func openAuthURL(_ url: URL) {
            Task {
                let sessionID =
                    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first {
                        $0.name == "sessionId"
                    }?.value ?? ""
                var form = URLRequest(url: URL(string: "/emulator/auth/handler", relativeTo: url)!.absoluteURL)
                form.httpMethod = "POST"
                form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
                let address = email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email
                form.httpBody = Data("sessionId=\(sessionID)&email=\(address)&displayName=Pat".utf8)
                _ = try? await URLSession.shared.data(for: form)
            }
        }
    }

    @Test func browserSignInThroughTheDevelopmentPicker() async throws {
        let auth = Auth.auth(app: try SharedServer.server.app())
        let callbacks = TestQueue()
        auth.callbackQueue = callbacks.queue
        let email = uniqueEmail()
        let provider = OAuthProvider(providerID: "facebook.com", auth: auth)
        let credential: AuthCredential = try await withCheckedThrowingContinuation { continuation in
            provider.getCredentialWith(PickerBrowser(email: email)) { credential, error in
                #expect(callbacks.isCurrent, "the completion runs on the auth's callback queue")
                if let credential {
                    continuation.resume(returning: credential)
                } else {
                    continuation.resume(throwing: error!)
                }
            }
        }
        #expect(credential.provider == "facebook.com")
        let result = try await auth.signIn(with: credential)
        #expect(result.user.email == email)
        #expect(result.user.displayName == "Pat")
        #expect(result.additionalUserInfo?.isNewUser == true)
        #expect(result.user.providerData.map(\.providerID) == ["facebook.com"])
        try auth.signOut()
    }
}
