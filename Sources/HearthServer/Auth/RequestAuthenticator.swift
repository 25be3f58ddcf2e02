import HearthAuth
import HearthCore
import HearthHTTP

/// The one place the server turns a request's credential into the caller (`request.auth` for rules): every API
/// asks it, so all agree on who is calling.
///
/// Credentials, first found wins: `Authorization: Bearer <ID token or admin key>` (or `Firebase <…>`, as Storage
/// clients send it), then the Realtime Database's `?auth=<ID token>`, then `?access_token=<ID token>`. The admin key
/// (or `owner` in development mode) yields `AuthContext.admin`.
struct RequestAuthenticator: Sendable {
    let service: AccountService

    /// The caller, `nil` when the request carries no credential, or `UNAUTHENTICATED` when it carries one that does
    /// not verify (malformed, unsigned, foreign, expired, revoked, or of a disabled or deleted account).
    func authenticate(_ request: HTTPRequest) throws(HearthError) -> AuthContext? {
        guard let credential = try Self.credential(of: request) else { return nil }
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
    func recheck(_ request: HTTPRequest, auth: AuthContext?) -> (@Sendable () -> Bool)? {
        guard let auth, !auth.isAdmin else { return nil }
        return { [self] in
            do {
                return try authenticate(request) != nil
            } catch {
                return false
            }
        }
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
