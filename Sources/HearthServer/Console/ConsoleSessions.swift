import HearthCore
import HearthCrypto
import HearthHTTP
import Synchronization

/// The console's admin sessions outside development mode: signing in with the admin key gives a random session
/// token (an `HttpOnly`, `SameSite=Strict` cookie the page's script cannot read) and a CSRF token (which the page
/// sends as a header on every call). Together they stand for the admin credential; `RequestAuthenticator` is where
/// they are judged.
///
/// Sessions live in memory: a restart signs everyone out, which for one admin key is a fair price for keeping no
/// session secret on disk. Only the SHA-256 of a session token is kept.
final class ConsoleSessions: Sendable {
    /// The cookie that carries the session token.
    static let cookieName = "hearth_console"
    /// The header that carries the CSRF token on the page's calls.
    static let csrfHeader = "X-Hearth-Console-CSRF"

    /// Limits and lifetimes.
    struct Configuration: Sendable {
        /// How long a session lasts after sign-in, in seconds (no renewal: sign in again).
        var lifetimeSeconds: Int64 = 8 * 3600
        /// At most this many sessions at once; a sign-in past it ends the oldest.
        var maxSessions = 64
        /// At most this many refused sign-ins a minute, from anywhere; past it every sign-in is refused until the
        /// minute has passed, so the admin key cannot be guessed at speed.
        var maxFailedSignInsPerMinute = 10
    }

    /// One signed-in session.
    struct Session: Sendable {
        /// The token the page sends in `csrfHeader`.
        let csrfToken: String
        let createdAt: Timestamp
        let expiresAt: Timestamp
    }

    /// What a sign-in hands out: the cookie's token and the page's CSRF token.
    struct Issued: Sendable {
        let token: String
        let csrfToken: String
        let lifetimeSeconds: Int64
    }

    private struct State {
        var sessions: [[UInt8]: Session] = [:]
        var failures: [Timestamp] = []
    }

    let configuration: Configuration
    private let clock: WallClock
    private let state = Mutex(State())

    init(configuration: Configuration = Configuration(), clock: WallClock = .system) {
        self.configuration = configuration
        self.clock = clock
    }

    /// A new session when `isAdminKey(key)`; `UNAUTHENTICATED` when it is not, `RESOURCE_EXHAUSTED` while too many
    /// sign-ins were refused in the last minute (then even the right key waits).
    func signIn(key: String, isAdminKey: (String) -> Bool) throws(HearthError) -> Issued {
        let now = clock.now()
        let minuteAgo = Timestamp(microseconds: now.microseconds - 60_000_000)
        let throttled = state.withLock { state in
            state.failures.removeAll { $0 < minuteAgo }
            return state.failures.count >= configuration.maxFailedSignInsPerMinute
        }
        if throttled {
            throw HearthError(
                .resourceExhausted, "Too many refused sign-ins in the last minute; wait a minute and try again.")
        }
        guard !key.isEmpty, isAdminKey(key) else {
            state.withLock { $0.failures.append(now) }
            throw HearthError(.unauthenticated, "That is not this server's admin key.")
        }
        let issued = Issued(
            token: Self.randomToken(), csrfToken: Self.randomToken(), lifetimeSeconds: configuration.lifetimeSeconds)
        let session = Session(
            csrfToken: issued.csrfToken, createdAt: now,
            expiresAt: Timestamp(microseconds: now.microseconds + configuration.lifetimeSeconds * 1_000_000))
        state.withLock { state in
            state.sessions = state.sessions.filter { $0.value.expiresAt > now }
            while state.sessions.count >= configuration.maxSessions,
                let oldest = state.sessions.min(by: { $0.value.createdAt < $1.value.createdAt })
            {
                state.sessions[oldest.key] = nil
            }
            state.sessions[SHA256.hash(Array(issued.token.utf8))] = session
        }
        return issued
    }

    /// The live session whose token is `token`, or `nil` (unknown, ended or expired).
    func session(token: String) -> Session? {
        let now = clock.now()
        let key = SHA256.hash(Array(token.utf8))
        return state.withLock { state in
            guard let session = state.sessions[key] else { return nil }
            guard session.expiresAt > now else {
                state.sessions[key] = nil
                return nil
            }
            return session
        }
    }

    /// Ends the session whose token is `token`.
    func signOut(token: String) {
        let key = SHA256.hash(Array(token.utf8))
        state.withLock { _ = $0.sessions.removeValue(forKey: key) }
    }

    /// How many sessions are held (expired ones included until next looked at).
    var count: Int { state.withLock { $0.sessions.count } }

    /// The session token in `request`'s `Cookie` header, if any.
    static func token(in request: HTTPRequest) -> String? { BrowserCookies.value(cookieName, in: request) }

    /// Whether `request` comes from a page of this server: its `Origin` (which browsers send on every fetch that
    /// is not a GET) names the host the request was sent to. A request without `Origin` is not from a browser page
    /// of another site (browsers always send it cross-site), so it passes; the CSRF token still has to match.
    static func isSameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers["Origin"] else { return true }
        guard let host = request.headers["Host"], !host.isEmpty,
            let schemeEnd = origin.range(of: "://")
        else { return false }
        return origin[schemeEnd.upperBound...].lowercased() == host.lowercased()
    }

    /// The `Set-Cookie` value for `issued`.
    static func cookie(_ issued: Issued, for request: HTTPRequest) -> String {
        BrowserCookies.setting(
            cookieName, to: issued.token, maxAge: Int(issued.lifetimeSeconds), sameSite: .strict, for: request)
    }

    /// The `Set-Cookie` value that removes the session cookie.
    static func clearingCookie(for request: HTTPRequest) -> String {
        BrowserCookies.clearing(cookieName, sameSite: .strict, for: request)
    }

    /// 32 random bytes as 43 URL-safe characters.
    private static func randomToken() -> String {
        SecureRandom.string(count: 43, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    }
}
