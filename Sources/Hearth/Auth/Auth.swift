public import Foundation
import HearthCore
import Synchronization

/// Accounts for one app: sign-up, sign-in, the current user and its tokens — Hearth's `Auth`.
///
/// The session survives restarts: on Apple platforms in the keychain, elsewhere in an owner-only (0600) file under
/// ``HearthOptions/storageDirectory``. ID tokens are refreshed five minutes before they expire, whenever one is
/// needed.
public final class Auth: Sendable {
    /// The app this instance belongs to.
    public let app: HearthApp
    let client: AccountsClient
    private let store: any SessionStore
    private let state: Mutex<State>
    /// Where state listeners and completions run.
    let callbacks = CallbackQueue()

    private struct State: ~Copyable {
        var user: User?
        var listeners: [ObjectIdentifier: @Sendable (Auth, User?) -> Void] = [:]
        var handles: [ObjectIdentifier: AuthStateDidChangeListenerHandle] = [:]
    }

    init(app: HearthApp) {
        self.app = app
        client = AccountsClient(app: app)
        store = makeSessionStore(for: app)
        state = Mutex(State(user: nil))
        if let session = store.load() {
            let user = User(auth: self, session: session)
            state.withLock { $0.user = user }
        }
    }

    /// The default app's `Auth`. Call ``HearthApp/configure(options:)`` first.
    public static func auth() -> Auth { HearthApp.requireDefault.auth }

    /// The `Auth` of `app`.
    /// - Parameter app: a configured app.
    public static func auth(app: HearthApp) -> Auth { app.auth }

    /// The queue state listeners and completion handlers run on: the main queue by default, as in Firebase (which
    /// always uses the main queue). Hearth lets an app choose another serial queue — a terminal app that never runs
    /// the main queue, or a test. `async` forms resume wherever Swift resumes them.
    public var callbackQueue: DispatchQueue {
        get { callbacks.current }
        set { callbacks.current = newValue }
    }

    /// The signed-in user, or `nil`; restored from the saved session at launch.
    public var currentUser: User? { state.withLock { $0.user } }

    /// Points this app at a server on `host:port` over HTTP, as with the Firebase Auth emulator.
    /// Affects every service of the app, since Hearth serves them all on one port.
    public func useEmulator(withHost host: String, port: Int) { app.useHost(host, port: port) }

    // MARK: Sign-up and sign-in

    /// Creates an email/password account and signs it in.
    /// - Throws: ``AuthErrorCode`` — `emailAlreadyInUse`, `invalidEmail`, `weakPassword`, `networkError` ….
    @discardableResult
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        let json = try await client.call(
            "signUp", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
        return try signedIn(try await completedSession(json, isAnonymous: false))
    }

    /// Completion-handler form of ``createUser(withEmail:password:)``.
    public func createUser(
        withEmail email: String, password: String,
        completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        callbacks.complete(completion) { try await self.createUser(withEmail: email, password: password) }
    }

    /// Signs in with an email address and password.
    /// - Throws: ``AuthErrorCode`` — `wrongPassword`, `userNotFound`, `invalidCredential`, `tooManyRequests` ….
    @discardableResult
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        let json = try await client.call(
            "signInWithPassword", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
        return try signedIn(try await completedSession(json, isAnonymous: false))
    }

    /// The session a sign-in answer starts, completed with the account as `accounts:lookup` describes it — its
    /// provider identities, its profile, its times — before any listener hears of the user, as Firebase's SDKs fetch
    /// the account after every sign-in. A lookup that fails leaves the answer's own fields.
    func completedSession(_ json: JSONValue, isAnonymous: Bool) async throws -> AuthSession {
        var session = try AuthSession(signInResponse: json, isAnonymous: isAnonymous, now: Date())
        if let lookup = try? await client.call("lookup", ["idToken": .string(session.idToken)]),
            let record = lookup["users"]?[0]
        {
            session.apply(lookup: record)
        }
        return session
    }

    /// Completion-handler form of ``signIn(withEmail:password:)``.
    public func signIn(
        withEmail email: String, password: String,
        completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        callbacks.complete(completion) { try await self.signIn(withEmail: email, password: password) }
    }

    /// Signs in as a new anonymous user, or returns the current one if it is already anonymous (as Firebase does).
    @discardableResult
    public func signInAnonymously() async throws -> AuthDataResult {
        if let user = currentUser, user.isAnonymous { return AuthDataResult(user: user) }
        let json = try await client.call("signUp", ["returnSecureToken": true])
        return try signedIn(try AuthSession(signInResponse: json, isAnonymous: true, now: Date()))
    }

    /// Completion-handler form of ``signInAnonymously()``.
    public func signInAnonymously(completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        callbacks.complete(completion) { try await self.signInAnonymously() }
    }

    /// Signs in with a custom token minted by your backend (RS256 with a registered key; unsigned in dev mode).
    /// - Throws: ``AuthErrorCode/Code/invalidCustomToken`` when the server refuses it.
    @discardableResult
    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        var json = try await client.call("signInWithCustomToken", ["token": .string(token), "returnSecureToken": true])
        // The answer carries no localId; the ID token's claims name the user.
        if json["localId"] == nil, case .object(var members) = json,
            let claims = JWTClaims(json["idToken"]?.stringValue ?? "")
        {
            members["localId"] = claims.json["user_id"] ?? claims.json["sub"]
            members["email"] = claims.json["email"]
            members["emailVerified"] = claims.json["email_verified"]
            json = .object(members)
        }
        return try signedIn(try AuthSession(signInResponse: json, isAnonymous: false, now: Date()))
    }

    /// Completion-handler form of ``signIn(withCustomToken:)``.
    public func signIn(
        withCustomToken token: String, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        callbacks.complete(completion) { try await self.signIn(withCustomToken: token) }
    }

    /// Signs in with a provider credential (``GoogleAuthProvider``, ``FacebookAuthProvider``, ``OAuthProvider`` …),
    /// creating the account at the first sign-in.
    /// - Throws: ``AuthErrorCode`` — `accountExistsWithDifferentCredential` (with ``AuthErrorCode/email`` and
    ///   ``AuthErrorCode/updatedCredential``) when another account has the provider's address,
    ///   `invalidCredential` when the provider does not vouch for the credential, `operationNotAllowed` when the
    ///   server has the provider turned off.
    @discardableResult
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        let json = try await client.signInWithIdp(credential, linking: nil)
        let result = try signedIn(try AuthSession(signInResponse: json, isAnonymous: false, now: Date()))
        // The answer describes the provider identity; the account's own profile and providers come from lookup.
        try await result.user.reload()
        try await result.user.adoptAppleName(of: credential)
        return AuthDataResult(
            user: result.user, additionalUserInfo: AdditionalUserInfo(assertion: json),
            credential: credential as? OAuthCredential)
    }

    /// Completion-handler form of ``signIn(with:)``.
    public func signIn(
        with credential: AuthCredential, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        callbacks.complete(completion) { try await self.signIn(with: credential) }
    }

    /// Signs out locally: forgets the session (keychain item or file) and tells the listeners.
    /// - Throws: ``AuthErrorCode/Code/keychainError`` when the saved session cannot be removed.
    public func signOut() throws {
        try store.save(nil)
        setUser(nil)
    }

    /// Sends a password-reset mail (to the dev outbox in `--dev` mode).
    public func sendPasswordReset(withEmail email: String) async throws {
        _ = try await client.call("sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)])
    }

    /// Completion-handler form of ``sendPasswordReset(withEmail:)``.
    public func sendPasswordReset(withEmail email: String, completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        callbacks.completeVoid(completion) { try await self.sendPasswordReset(withEmail: email) }
    }

    /// Sets a new password with the code from a reset mail.
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        _ = try await client.call("resetPassword", ["oobCode": .string(code), "newPassword": .string(newPassword)])
    }

    // MARK: Listeners

    /// Registers a listener called with the current user, and again after every sign-in and sign-out, on
    /// ``callbackQueue`` (never inside this call or the call that signed in or out). It stays registered until
    /// ``removeStateDidChangeListener(_:)``, whether or not the handle is kept.
    /// - Returns: a handle for ``removeStateDidChangeListener(_:)``.
    @discardableResult
    public func addStateDidChangeListener(
        _ listener: @escaping @Sendable (Auth, User?) -> Void
    ) -> AuthStateDidChangeListenerHandle {
        let handle = AuthStateDidChangeListenerHandle()
        let user = state.withLock { state in
            state.listeners[ObjectIdentifier(handle)] = listener
            state.handles[ObjectIdentifier(handle)] = handle
            return state.user
        }
        callbacks.async { [self] in
            // A listener removed before its first call is not called.
            guard state.withLock({ $0.listeners[ObjectIdentifier(handle)] != nil }) else { return }
            listener(self, user)
        }
        return handle
    }

    /// Stops a listener.
    public func removeStateDidChangeListener(_ handle: AuthStateDidChangeListenerHandle) {
        state.withLock { state in
            state.listeners[ObjectIdentifier(handle)] = nil
            state.handles[ObjectIdentifier(handle)] = nil
        }
    }

    // MARK: Internals

    /// Makes `session` the current one, saves it and notifies listeners.
    private func signedIn(_ session: AuthSession) throws -> AuthDataResult {
        try store.save(session)
        let user = User(auth: self, session: session)
        setUser(user)
        return AuthDataResult(user: user)
    }

    private func setUser(_ user: User?) {
        let listeners = state.withLock { state in
            state.user = user
            return Array(state.listeners)
        }
        callbacks.async { [self] in
            for (key, listener) in listeners where state.withLock({ $0.listeners[key] != nil }) { listener(self, user) }
        }
    }

    /// Saves a changed session if it belongs to the current user.
    func sessionChanged(_ session: AuthSession, of user: User) throws(AuthErrorCode) {
        guard currentUser === user else { return }
        try store.save(session)
    }

    /// Signs out after the server declared the session dead (revoked, disabled or deleted).
    func sessionEnded(for user: User) {
        guard currentUser === user else { return }
        try? store.save(nil)
        setUser(nil)
    }

    /// The current user's ID token, refreshed if needed; `nil` when nobody is signed in.
    func idTokenForRequest() async throws -> String? {
        guard let user = currentUser else { return nil }
        return try await user.getIDToken()
    }
}

/// The result of a sign-up or sign-in.
public final class AuthDataResult: Sendable {
    /// The signed-in user.
    public let user: User
    /// What the provider said, for provider sign-ins and links.
    public let additionalUserInfo: AdditionalUserInfo?
    /// The provider credential used, for provider sign-ins and links.
    public let credential: OAuthCredential?

    init(user: User, additionalUserInfo: AdditionalUserInfo? = nil, credential: OAuthCredential? = nil) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
        self.credential = credential
    }
}

/// Identifies a state listener for ``Auth/removeStateDidChangeListener(_:)``.
public final class AuthStateDidChangeListenerHandle: Sendable {
    init() {}
}

/// The claims of a JWT, read without checking the signature — only to learn the uid of a token the server just
/// issued.
struct JWTClaims {
    let json: JSONValue

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), let json = try? JSONParser.parse(Array(data)) else { return nil }
        self.json = json
    }
}
