import HearthAuth
import HearthCore
import HearthCrypto
import HearthHTTP

/// The one place the server turns a request's credential into the caller (`request.auth` for rules): every API
/// asks it, so all agree on who is calling.
///
/// Credentials, first found wins: `Authorization: Bearer <ID token or admin key>` (or `Firebase <…>`, as Storage
/// clients send it), then the Realtime Database's `?auth=<ID token>`, then `?access_token=<ID token>`. The admin key
/// (or `owner` in development mode) yields `AuthContext.admin`. Without any of those, the console's session cookie
/// yields `AuthContext.admin` too, on the terms of `consoleSession(_:)`.
struct RequestAuthenticator: Sendable {
    let service: AccountService
    /// The console's signed-in sessions.
    let sessions: ConsoleSessions

    /// The caller, `nil` when the request carries no credential, or `UNAUTHENTICATED` when it carries one that does
    /// not verify (malformed, unsigned, foreign, expired, revoked, or of a disabled or deleted account).
    func authenticate(_ request: HTTPRequest) throws(HearthError) -> AuthContext? {
        guard let credential = try Self.credential(of: request) else {
            return try consoleSession(request) ? .admin : nil
        }
        if service.isAdminCredential(credential) { return .admin }
        do {
            return try service.authContext(idToken: credential)
        } catch {
            throw HearthError(
                .unauthenticated,
                "Request had invalid authentication credentials: the ID token was refused (\(error.code)).")
        }
    }

    /// A re-check of `request`'s credential for a long-lived stream (tree streams, listen sessions), run before each
    /// delivery: `true` while the ID token is unexpired and its account exists, is enabled and was not revoked since
    /// the token was issued (the token-status cache keeps this cheap). `nil` when there is nothing to re-check: no
    /// credential, or the admin's. A check that fails for any reason answers `false`: errors never allow.
    /// A stream opened with the console's session lasts as long as the session: signing out ends it.
    func recheck(_ request: HTTPRequest, auth: AuthContext?) -> (@Sendable () -> Bool)? {
        guard let auth else { return nil }
        if auth.isAdmin {
            guard !Self.hasCredential(request), let token = ConsoleSessions.token(in: request) else { return nil }
            return { [sessions] in sessions.session(token: token) != nil }
        }
        return { [self] in
            do {
                return try authenticate(request) != nil
            } catch {
                return false
            }
        }
    }

    /// Whether `request`'s console session cookie stands for the admin: the session is live and the request is one
    /// of the console's own calls — it carries the session's CSRF token in `X-Hearth-Console-CSRF` (and, for anything
    /// but a read, names this server's `Origin` if any), or it is the console's live stream: a GET that accepts only
    /// `text/event-stream`, as an `EventSource` (which cannot send headers) asks. `false` without a session cookie,
    /// and for any other request that carries one — a link followed, an image, a page of this origin reading the API
    /// without the token: such a request is judged as carrying no credential, so the cookie alone never makes the
    /// whole API answer as the admin.
    ///
    /// The stream needs no CSRF token: the cookie is `SameSite=Strict`, so another site's page cannot make the
    /// browser send it, and CORS gives no other origin a credentialed answer.
    /// - Throws: `UNAUTHENTICATED` when the console sent the call on a session that has expired or ended;
    ///   `PERMISSION_DENIED` when a change carries a live session cookie without its CSRF token or from another
    ///   origin — a forged cross-site request.
    func consoleSession(_ request: HTTPRequest) throws(HearthError) -> Bool {
        guard let token = ConsoleSessions.token(in: request) else { return false }
        let presented = request.headers[ConsoleSessions.csrfHeader]
        guard let session = sessions.session(token: token) else {
            guard presented == nil else {
                throw HearthError(.unauthenticated, "The console session has expired or ended; sign in again.")
            }
            return false
        }
        if request.method == "GET" || request.method == "HEAD" {
            guard let presented else { return request.headers["Accept"] == "text/event-stream" }
            if ConstantTime.equals(presented, session.csrfToken) { return true }
        }
        guard let presented, ConstantTime.equals(presented, session.csrfToken), ConsoleSessions.isSameOrigin(request)
        else {
            throw HearthError(
                .permissionDenied,
                "A change made with the console's session must come from the console itself (its CSRF token and "
                    + "this server's origin); this request is refused.")
        }
        return true
    }

    /// Whether `request` names a credential of its own (an `Authorization` header, `?auth=` or `?access_token=`).
    static func hasCredential(_ request: HTTPRequest) -> Bool {
        request.headers["Authorization"] != nil || request.queryValue("auth")?.isEmpty == false
            || request.queryValue("access_token")?.isEmpty == false
    }

    /// The presented credential, if any.
    static func credential(of request: HTTPRequest) throws(HearthError) -> String? {
        if let authorization = request.headers["Authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            // `Firebase <token>` is what Firebase's Storage clients send; it means the same as `Bearer`.
            guard parts.count == 2, ["bearer", "firebase"].contains(parts[0].lowercased()), !parts[1].isEmpty else {
                throw HearthError(.unauthenticated, "The Authorization header must be \"Bearer <ID token>\".")
            }
            return String(parts[1])
        }
        for name in ["auth", "access_token"] {
            if let value = request.queryValue(name), !value.isEmpty { return value }
        }
        return nil
    }
}
