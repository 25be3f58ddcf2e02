import Foundation
import Hearth
import Synchronization
import Testing

@Suite("Auth with a fake transport", .timeLimit(.minutes(1)))
struct AuthUnitTests {
    static func signInAnswer(expiresIn: Int = 3600, token: String = "id-1") -> TransportResponse {
        FakeTransport.json(
            #"{"localId":"u1","email":"a@example.com","idToken":"\#(token)","refreshToken":"r-1","expiresIn":"\#(expiresIn)"}"#
        )
    }

    @Test func signInSendsIdentityToolkitRequestAndSetsCurrentUser() async throws {
        let transport = FakeTransport { _ in Self.signInAnswer() }
        let auth = Auth.auth(app: fakeApp(transport))
        let result = try await auth.signIn(withEmail: "a@example.com", password: "secret1")
        #expect(result.user.uid == "u1")
        #expect(result.user.email == "a@example.com")
        #expect(auth.currentUser?.uid == "u1")
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(
            request.url.absoluteString
                == "http://fake.invalid:1/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k")
        let body = bodyJSON(request)
        #expect(body["email"] as? String == "a@example.com")
        #expect(body["returnSecureToken"] as? Bool == true)
    }

    @Test(arguments: [
        ("EMAIL_EXISTS", AuthErrorCode.Code.emailAlreadyInUse),
        ("INVALID_PASSWORD", .wrongPassword),
        ("EMAIL_NOT_FOUND", .userNotFound),
        ("WEAK_PASSWORD : Password should be at least 6 characters", .weakPassword),
        ("TOO_MANY_ATTEMPTS_TRY_LATER", .tooManyRequests),
        ("INVALID_EMAIL", .invalidEmail),
        ("USER_DISABLED", .userDisabled),
        ("INVALID_LOGIN_CREDENTIALS", .invalidCredential),
        ("INVALID_CUSTOM_TOKEN : bad", .invalidCustomToken),
        ("SOMETHING_NEW", .internalError),
    ])
    func serverErrorsMapToAuthErrorCodes(message: String, code: AuthErrorCode.Code) async throws {
        let transport = FakeTransport { _ in
            FakeTransport.json(#"{"error":{"code":400,"message":"\#(message)","errors":[]}}"#, status: 400)
        }
        let auth = Auth.auth(app: fakeApp(transport))
        do {
            try await auth.signIn(withEmail: "a@example.com", password: "x")
            Issue.record("expected an error")
        } catch let error as AuthErrorCode {
            #expect(error.code == code)
            #expect((error as NSError).domain == AuthErrorCode.errorDomain)
            #expect((error as NSError).code == code.rawValue)
        }
        #expect(auth.currentUser == nil)
    }

    @Test func networkFailureIsNetworkError() async throws {
        let transport = FakeTransport { _ in throw URLError(.cannotConnectToHost) }
        let auth = Auth.auth(app: fakeApp(transport))
        do {
            try await auth.createUser(withEmail: "a@example.com", password: "secret1")
        } catch AuthErrorCode.networkError {
            // matched through the `~=` pattern, as with Firebase
            #expect(auth.currentUser == nil)
        }
    }

    @Test func tokenIsRefreshedBeforeExpiry() async throws {
        let transport = FakeTransport { request in
            if request.url.path.contains("securetoken") {
                return FakeTransport.json(
                    #"{"id_token":"id-2","refresh_token":"r-2","expires_in":"3600","user_id":"u1"}"#)
            }
            // Expires within the five-minute margin, so the next use must refresh.
            return Self.signInAnswer(expiresIn: 60)
        }
        let auth = Auth.auth(app: fakeApp(transport))
        let user = try await auth.signIn(withEmail: "a@example.com", password: "secret1").user
        let token = try await user.getIDToken()
        #expect(token == "id-2")
        let refresh = try #require(transport.requests.last)
        #expect(String(decoding: refresh.body ?? Data(), as: UTF8.self) == "grant_type=refresh_token&refresh_token=r-1")
        // Fresh now: no further request.
        let count = transport.requests.count
        #expect(try await user.getIDToken() == "id-2")
        #expect(transport.requests.count == count)
        #expect(try await user.getIDToken(forcingRefresh: true) == "id-2")
        #expect(transport.requests.count == count + 1)
    }

    @Test func revokedRefreshTokenSignsOut() async throws {
        let transport = FakeTransport { request in
            if request.url.path.contains("securetoken") {
                return FakeTransport.json(#"{"error":{"code":400,"message":"INVALID_REFRESH_TOKEN"}}"#, status: 400)
            }
            return Self.signInAnswer(expiresIn: 1)
        }
        let auth = Auth.auth(app: fakeApp(transport))
        let user = try await auth.signIn(withEmail: "a@example.com", password: "secret1").user
        await #expect(throws: AuthErrorCode.self) { try await user.getIDToken() }
        #expect(auth.currentUser == nil)
    }

    @Test func sessionPersistsInOwnerOnlyFileAndIsRestored() async throws {
        let transport = FakeTransport { _ in Self.signInAnswer() }
        let app = fakeApp(transport)
        try await Auth.auth(app: app).signIn(withEmail: "a@example.com", password: "secret1")
        let directory = try #require(app.options.storageDirectory)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("auth-") }
        #expect(files.count == 1)
        let path = directory.appendingPathComponent(files[0]).path
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        // A second app with the same name and storage (a relaunch) restores the user without a request.
        let relaunched = HearthApp.configureForTest(copying: app, transport: transport)
        #expect(Auth.auth(app: relaunched).currentUser?.uid == "u1")
        try Auth.auth(app: relaunched).signOut()
        #expect(Auth.auth(app: relaunched).currentUser == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func stateListenerFiresNowAndOnChanges() async throws {
        let transport = FakeTransport { _ in Self.signInAnswer() }
        let auth = Auth.auth(app: fakeApp(transport))
        let callbacks = TestQueue()
        auth.callbackQueue = callbacks.queue
        let seen = Events<String?>()
        let handle = auth.addStateDidChangeListener { _, user in seen.add(user?.uid) }
        #expect(await seen.next() == nil)
        try await auth.signIn(withEmail: "a@example.com", password: "secret1")
        #expect(await seen.next() == "u1")
        try auth.signOut()
        #expect(await seen.next() == nil)
        auth.removeStateDidChangeListener(handle)
        try await auth.signIn(withEmail: "a@example.com", password: "secret1")
        // Every call was queued by now; once they ran, the removed listener had no further call.
        callbacks.drain()
        #expect(seen.all == [nil, "u1", nil])
    }

    @Test func customTokenSignInTakesUidFromTheIDToken() async throws {
        let idToken = fakeJWT(["user_id": "custom-7", "sub": "custom-7", "email": "c@example.com"])
        let transport = FakeTransport { _ in
            FakeTransport.json(#"{"idToken":"\#(idToken)","refreshToken":"r","expiresIn":"3600","isNewUser":true}"#)
        }
        let auth = Auth.auth(app: fakeApp(transport))
        let user = try await auth.signIn(withCustomToken: "anything").user
        #expect(user.uid == "custom-7")
        #expect(user.email == "c@example.com")
    }

    @Test func completionHandlerFormReportsResult() async throws {
        let transport = FakeTransport { _ in Self.signInAnswer() }
        let auth = Auth.auth(app: fakeApp(transport))
        let uid: String? = await withCheckedContinuation { continuation in
            auth.signIn(withEmail: "a@example.com", password: "secret1") { result, _ in
                continuation.resume(returning: result?.user.uid)
            }
        }
        #expect(uid == "u1")
    }
}

extension HearthApp {
    /// A new app with the same options under a new name but the same storage — a relaunch of `app`.
    static func configureForTest(copying app: HearthApp, transport: FakeTransport) -> HearthApp {
        let name = app.name
        app.delete()
        HearthApp.configure(name: name, options: app.options, transport: transport)
        return HearthApp.app(name: name)!
    }
}
