import Foundation
import HearthCore
import Synchronization

/// A signed-in account — Hearth's `User`.
///
/// Profile properties reflect the last sign-in, refresh or ``reload()``.
public final class User: Sendable {
    let auth: Auth
    private let session: Mutex<AuthSession>
    /// The refresh in flight, so concurrent callers share one request.
    private let refreshing = Mutex<Task<String, any Error>?>(nil)

    init(auth: Auth, session: AuthSession) {
        self.auth = auth
        self.session = Mutex(session)
    }

    /// The user's stable ID.
    public var uid: String { session.withLock { $0.uid } }
    /// The email address, if the account has one.
    public var email: String? { session.withLock { $0.email } }
    /// The display name, if set.
    public var displayName: String? { session.withLock { $0.displayName } }
    /// Whether the email address has been verified.
    public var isEmailVerified: Bool { session.withLock { $0.emailVerified } }
    /// Whether the account was created by ``Auth/signInAnonymously()``.
    public var isAnonymous: Bool { session.withLock { $0.isAnonymous } }
    /// The refresh token (treat it as a secret).
    public var refreshToken: String? { session.withLock { $0.refreshToken } }
    /// The account's identities (`password`, `google.com`, …) as of the last provider sign-in, link, unlink or
    /// ``reload()``.
    public var providerData: [any UserInfo] { session.withLock { $0.providers ?? [] } }

    /// The user's ID token, refreshed when it expires within five minutes or when `forcingRefresh` is set.
    /// - Throws: ``AuthErrorCode`` — `userTokenExpired` or `invalidUserToken` when the session was revoked (the
    ///   user is then signed out), `networkError` when the server is unreachable.
    public func getIDToken(forcingRefresh: Bool = false) async throws -> String {
        let current = session.withLock { $0 }
        if !forcingRefresh && !current.needsRefresh(at: Date()) { return current.idToken }
        let task = refreshing.withLock { running in
            if let running { return running }
            let task = Task { try await self.refresh() }
            running = task
            return task
        }
        defer { refreshing.withLock { $0 = nil } }
        return try await task.value
    }

    /// Completion-handler form of ``getIDToken(forcingRefresh:)``.
    public func getIDTokenForcingRefresh(
        _ forceRefresh: Bool, completion: (@Sendable (String?, (any Error)?) -> Void)? = nil
    ) {
        auth.callbacks.complete(completion) { try await self.getIDToken(forcingRefresh: forceRefresh) }
    }

    /// Completion-handler form of ``getIDToken(forcingRefresh:)`` without forcing.
    public func getIDToken(completion: (@Sendable (String?, (any Error)?) -> Void)?) {
        auth.callbacks.complete(completion) { try await self.getIDToken() }
    }

    /// Reloads the profile (email, verification, display name) from the server.
    public func reload() async throws {
        let token = try await getIDToken()
        let json = try await auth.client.call("lookup", ["idToken": .string(token)])
        guard let record = json["users"]?[0] else { throw AuthErrorCode(.userNotFound, "USER_NOT_FOUND") }
        let updated = session.withLock { session in
            session.apply(lookup: record)
            return session
        }
        try auth.sessionChanged(updated, of: self)
    }

    /// Completion-handler form of ``reload()``.
    public func reload(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        auth.callbacks.completeVoid(completion) { try await self.reload() }
    }

    /// Sends a verification mail to the user's address (to the dev outbox in `--dev` mode).
    public func sendEmailVerification() async throws {
        let token = try await getIDToken()
        _ = try await auth.client.call("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(token)])
    }

    /// Completion-handler form of ``sendEmailVerification()``.
    public func sendEmailVerification(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        auth.callbacks.completeVoid(completion) { try await self.sendEmailVerification() }
    }

    /// Changes the password. The server revokes older sessions and answers with new tokens, which this user keeps.
    public func updatePassword(to password: String) async throws {
        let token = try await getIDToken()
        let json = try await auth.client.call(
            "update", ["idToken": .string(token), "password": .string(password), "returnSecureToken": true])
        try adoptTokens(from: json)
    }

    /// Completion-handler form of ``updatePassword(to:)``.
    public func updatePassword(to password: String, completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        auth.callbacks.completeVoid(completion) { try await self.updatePassword(to: password) }
    }

    /// Sets the display name.
    public func updateDisplayName(to name: String?) async throws {
        let token = try await getIDToken()
        var body: [String: JSONValue] = ["idToken": .string(token), "returnSecureToken": true]
        if let name { body["displayName"] = .string(name) } else { body["deleteAttribute"] = ["DISPLAY_NAME"] }
        let json = try await auth.client.call("update", body)
        session.withLock { $0.displayName = name }
        try adoptTokens(from: json)
    }

    /// Links a provider credential to this account, so either signs it in from now on.
    /// - Throws: ``AuthErrorCode`` — `credentialAlreadyInUse` when the identity belongs to another account,
    ///   `providerAlreadyLinked` when this account has another identity at the provider, `emailAlreadyInUse` when
    ///   the provider's address belongs to another account.
    @discardableResult
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        let token = try await getIDToken()
        let json = try await auth.client.signInWithIdp(credential, linking: token)
        try adoptTokens(from: json)
        try await reload()
        try await adoptAppleName(of: credential)
        return AuthDataResult(
            user: self, additionalUserInfo: AdditionalUserInfo(assertion: json),
            credential: credential as? OAuthCredential)
    }

    /// Apple hands the user's name to the app at the first sign-in only, never in the ID token: it becomes the
    /// display name of an account that has none.
    func adoptAppleName(of credential: AuthCredential) async throws {
        guard displayName == nil, let name = (credential as? OAuthCredential)?.fullName else { return }
        let text = [name.givenName, name.familyName].compactMap { $0 }.joined(separator: " ")
        if !text.isEmpty { try await updateDisplayName(to: text) }
    }

    /// Completion-handler form of ``link(with:)``.
    public func link(
        with credential: AuthCredential, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        auth.callbacks.complete(completion) { try await self.link(with: credential) }
    }

    /// Unlinks the identity at `provider` (`google.com`, `password`, …) from this account.
    /// - Throws: ``AuthErrorCode/Code/noSuchProvider`` when the account has none there.
    @discardableResult
    public func unlink(fromProvider provider: String) async throws -> User {
        if providerData.isEmpty { try await reload() }
        guard providerData.contains(where: { $0.providerID == provider }) else {
            throw AuthErrorCode(.noSuchProvider, "NO_SUCH_PROVIDER : the account has no \(provider) identity")
        }
        let token = try await getIDToken()
        let json = try await auth.client.call(
            "update", ["idToken": .string(token), "deleteProvider": [.string(provider)], "returnSecureToken": true])
        let updated = session.withLock { session in
            session.apply(lookup: json)
            return session
        }
        try auth.sessionChanged(updated, of: self)
        try adoptTokens(from: json)
        return self
    }

    /// Completion-handler form of ``unlink(fromProvider:)``.
    public func unlink(fromProvider provider: String, completion: (@Sendable (User?, (any Error)?) -> Void)? = nil) {
        auth.callbacks.complete(completion) { try await self.unlink(fromProvider: provider) }
    }

    /// Deletes the account on the server and signs it out.
    public func delete() async throws {
        let token = try await getIDToken()
        _ = try await auth.client.call("delete", ["idToken": .string(token)])
        auth.sessionEnded(for: self)
    }

    /// Completion-handler form of ``delete()``.
    public func delete(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        auth.callbacks.completeVoid(completion) { try await self.delete() }
    }

    // MARK: Internals

    private func refresh() async throws -> String {
        let refreshToken = session.withLock { $0.refreshToken }
        let json: JSONValue
        do {
            json = try await auth.client.refresh(refreshToken)
        } catch {
            if error.code == .invalidUserToken || error.code == .userTokenExpired || error.code == .userDisabled
                || error.code == .userNotFound
            {
                auth.sessionEnded(for: self)
            }
            throw error
        }
        let now = Date()
        let updated = try session.withLock { (session) throws(AuthErrorCode) -> AuthSession in
            try session.apply(refreshResponse: json, now: now)
            return session
        }
        try auth.sessionChanged(updated, of: self)
        return updated.idToken
    }

    /// Takes new tokens from an `accounts:update` answer, when it carries them.
    private func adoptTokens(from json: JSONValue) throws {
        guard let idToken = json["idToken"]?.stringValue else { return }
        let expires = json["expiresIn"]?.stringValue.flatMap(TimeInterval.init) ?? 3600
        let updated = session.withLock { session in
            session.idToken = idToken
            if let refresh = json["refreshToken"]?.stringValue { session.refreshToken = refresh }
            if let email = json["email"]?.stringValue { session.email = email }
            session.expiresAt = Date().addingTimeInterval(expires)
            return session
        }
        try auth.sessionChanged(updated, of: self)
    }
}
