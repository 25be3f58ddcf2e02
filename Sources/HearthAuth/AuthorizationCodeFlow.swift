import Foundation
import HearthCore
import HearthCrypto
import Synchronization

/// Browser sign-ins in flight: `accounts:createAuthUri` starts one (a `state`, a PKCE verifier and a nonce, kept
/// here under a random `sessionId`), the provider sends the browser back with a code, and `accounts:signInWithIdp`
/// with that `sessionId` ends it — once. Bounded: at most ``capacity`` sessions, each for ``lifetime`` seconds.
final class AuthorizationSessions: Sendable {
    struct Session: Sendable {
        var providerID: String
        var redirectURI: String
        var state: String
        var codeVerifier: String
        var rawNonce: String
        var createdAt: Int64
        /// Development mode: the sign-in goes through Hearth's provider picker, not a provider.
        var viaDevPicker = false
    }

    /// Seconds a session waits for the provider's redirect.
    static let lifetime: Int64 = 600

    let capacity: Int
    private let sessions = Mutex<[String: Session]>([:])

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Keeps `session` under a new ID; `TOO_MANY_ATTEMPTS_TRY_LATER` when ``capacity`` unexpired ones wait already.
    func start(_ session: Session, now: Int64) throws(AuthError) -> String {
        let id = SecureRandom.string(
            count: 40, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let stored = sessions.withLock { sessions in
            if sessions.count >= capacity { sessions = sessions.filter { now - $0.value.createdAt < Self.lifetime } }
            guard sessions.count < capacity else { return false }
            sessions[id] = session
            return true
        }
        guard stored else { throw AuthError("TOO_MANY_ATTEMPTS_TRY_LATER", "too many sign-ins are in progress") }
        return id
    }

    /// The session `id`, left in place, unless it is unknown or expired.
    func peek(_ id: String, now: Int64) -> Session? {
        sessions.withLock { sessions in sessions[id].flatMap { now - $0.createdAt < Self.lifetime ? $0 : nil } }
    }

    /// Removes and returns the session `id`, unless it is unknown or expired.
    func take(_ id: String, now: Int64) -> Session? {
        sessions.withLock { sessions in
            guard let session = sessions.removeValue(forKey: id), now - session.createdAt < Self.lifetime else {
                return nil
            }
            return session
        }
    }
}

extension IdentityProviders {
    /// `accounts:createAuthUri` for a provider: where to send the browser (the provider's authorization endpoint
    /// with `client_id`, `redirect_uri` = `continueUri`, `state`, PKCE S256 and a nonce) and the `sessionId` to
    /// present when it comes back.
    ///
    /// In development mode a provider that is not configured goes through Hearth's provider picker at
    /// `devPickerURL` instead, as the Auth emulator's `/emulator/auth/handler` does.
    public func authorizationURI(
        providerID: String, redirectURI: String, now: Int64, devPickerURL: String
    ) throws(AuthError) -> (authURI: String, sessionID: String) {
        guard let url = URL(string: redirectURI), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else { throw AuthError("INVALID_CONTINUE_URI") }
        if devMode && configurations[providerID] == nil {
            guard !Self.reservedIDs.contains(providerID), !providerID.isEmpty, providerID.utf8.count <= 128 else {
                throw AuthError("INVALID_PROVIDER_ID")
            }
            var session = AuthorizationSessions.Session(
                providerID: providerID, redirectURI: redirectURI, state: Base64URL.encode(SecureRandom.bytes(24)),
                codeVerifier: "", rawNonce: "", createdAt: now)
            session.viaDevPicker = true
            let sessionID = try sessions.start(session, now: now)
            let query = "providerId=\(AccountService.percentEncode(providerID))&sessionId=\(sessionID)"
            return ("\(devPickerURL)?\(query)", sessionID)
        }
        let (configuration, keys) = try configuredProvider(providerID)
        if let oauth = configuration.oauthEndpoints {
            return try oauthAuthorizationURI(configuration, oauth, redirectURI: redirectURI, now: now)
        }
        guard let clientID = configuration.clientIDs.first,
            let endpoint = try keys.discovery(now: now).authorizationEndpoint
        else {
            throw AuthError.invalidIdpResponse("the provider's discovery document has no authorization_endpoint")
        }
        guard fetcher.policy.allows(endpoint) else {
            throw AuthError.invalidIdpResponse("the authorization endpoint \(endpoint) is not https")
        }
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        let rawNonce = Base64URL.encode(SecureRandom.bytes(24))
        let state = Base64URL.encode(SecureRandom.bytes(24))
        let session = AuthorizationSessions.Session(
            providerID: providerID, redirectURI: redirectURI, state: state, codeVerifier: verifier,
            rawNonce: rawNonce, createdAt: now)
        let sessionID = try sessions.start(session, now: now)
        let query: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("scope", "openid email profile"), ("state", state), ("nonce", ProviderTokenVerifier.hexSHA256(rawNonce)),
            ("code_challenge", Base64URL.encode(SHA256.hash(Array(verifier.utf8)))), ("code_challenge_method", "S256"),
        ]
        let encoded = query.map { "\($0.0)=\(AccountService.percentEncode($0.1))" }.joined(separator: "&")
        return (endpoint + (endpoint.contains("?") ? "&" : "?") + encoded, sessionID)
    }

    /// The end of a browser sign-in: `requestUri` is where the provider sent the browser back (`…?code=…&state=…`).
    /// The code is exchanged at the provider's token endpoint with the session's PKCE verifier (and the client
    /// secret, when configured), and the ID token that comes back is verified with the session's nonce.
    func completeAuthorization(
        requestURI: String, sessionID: String?, now: Int64
    ) throws(AuthError) -> FederatedIdentity {
        guard let sessionID, !sessionID.isEmpty else { throw AuthError("MISSING_SESSION_ID") }
        guard let session = sessions.take(sessionID, now: now) else {
            throw AuthError.invalidIdpResponse("the sessionId is unknown, used or expired")
        }
        let items = URLComponents(string: requestURI)?.queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = item("error") { throw AuthError.invalidIdpResponse("the provider answered \(error)") }
        guard requestURI.hasPrefix(session.redirectURI), let code = item("code"), !code.isEmpty,
            let state = item("state"), ConstantTime.equals(state, session.state)
        else { throw AuthError.invalidIdpResponse("the redirect does not belong to this sign-in") }
        if session.viaDevPicker {
            // The picker's code is the stated claims themselves (development mode trusts them anyway).
            guard devMode, let claims = Base64URL.decode(code) else {
                throw AuthError.invalidIdpResponse("the redirect does not belong to this sign-in")
            }
            return try Self.statedIdentity(
                Credential(providerID: session.providerID, idToken: String(decoding: claims, as: UTF8.self)))
        }
        let (configuration, keys) = try configuredProvider(session.providerID)
        if let oauth = configuration.oauthEndpoints {
            return try redeemOAuthCode(code, configuration, oauth, session: session, now: now)
        }
        guard let endpoint = try keys.discovery(now: now).tokenEndpoint else {
            throw AuthError.invalidIdpResponse("the provider's discovery document has no token_endpoint")
        }
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", session.redirectURI),
            ("client_id", configuration.clientIDs.first ?? ""), ("code_verifier", session.codeVerifier),
        ]
        if let secret = configuration.clientSecret { form.append(("client_secret", secret)) }
        let answer = try fetcher.json(endpoint, form: form)
        guard answer.status == 200, let idToken = answer.value["id_token"]?.stringValue else {
            throw AuthError.invalidIdpResponse("the token endpoint answered HTTP \(answer.status) without an id_token")
        }
        var identity = try ProviderTokenVerifier(configuration: configuration, keys: keys).verify(
            idToken, rawNonce: session.rawNonce, now: now)
        identity.accessToken = answer.value["access_token"]?.stringValue
        return identity
    }
}

extension IdentityProviders {
    /// Facebook's and GitHub's authorization page: `client_id`, `redirect_uri`, their scopes, `state` and PKCE S256
    /// (both accept it), but no nonce — no ID token comes back.
    fileprivate func oauthAuthorizationURI(
        _ configuration: IdentityProviderConfiguration,
        _ oauth: (authorization: String, token: String, scope: String), redirectURI: String, now: Int64
    ) throws(AuthError) -> (authURI: String, sessionID: String) {
        guard let clientID = configuration.clientIDs.first else {
            throw AuthError.invalidIdpResponse("\(configuration.providerID) has no client ID configured")
        }
        guard fetcher.policy.allows(oauth.authorization) else {
            throw AuthError.invalidIdpResponse("the authorization endpoint \(oauth.authorization) is not https")
        }
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        let state = Base64URL.encode(SecureRandom.bytes(24))
        let session = AuthorizationSessions.Session(
            providerID: configuration.providerID, redirectURI: redirectURI, state: state, codeVerifier: verifier,
            rawNonce: "", createdAt: now)
        let sessionID = try sessions.start(session, now: now)
        let query: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("scope", oauth.scope), ("state", state),
            ("code_challenge", Base64URL.encode(SHA256.hash(Array(verifier.utf8)))), ("code_challenge_method", "S256"),
        ]
        let encoded = query.map { "\($0.0)=\(AccountService.percentEncode($0.1))" }.joined(separator: "&")
        let endpoint = oauth.authorization
        return (endpoint + (endpoint.contains("?") ? "&" : "?") + encoded, sessionID)
    }

    /// Exchanges Facebook's or GitHub's code for an access token (client secret and PKCE verifier), then checks
    /// that token exactly as one the app sent itself (`debug_token` and `/me`; `/user` and `/user/emails`).
    fileprivate func redeemOAuthCode(
        _ code: String, _ configuration: IdentityProviderConfiguration,
        _ oauth: (authorization: String, token: String, scope: String), session: AuthorizationSessions.Session,
        now: Int64
    ) throws(AuthError) -> FederatedIdentity {
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", session.redirectURI),
            ("client_id", configuration.clientIDs.first ?? ""), ("code_verifier", session.codeVerifier),
        ]
        if let secret = configuration.clientSecret { form.append(("client_secret", secret)) }
        let answer = try fetcher.json(oauth.token, form: form)
        guard answer.status == 200, let token = answer.value["access_token"]?.stringValue, !token.isEmpty else {
            throw AuthError.invalidIdpResponse(
                "the token endpoint answered HTTP \(answer.status) without an access_token")
        }
        return try verify(Credential(providerID: configuration.providerID, accessToken: token), now: now)
    }
}
