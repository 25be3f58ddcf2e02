import Foundation
import HearthCore
import HearthHTTP
import HearthListen
import HearthLog
import HearthStore
import Synchronization

/// The Realtime Database REST API: `/{path}.json` with GET (values, queries, shallow reads, streams), PUT, POST,
/// PATCH and DELETE, `/{path}/.priority.json`, and `/.settings/rules.json`. It claims only paths ending in `.json`,
/// so it sits after the other APIs in the server's list.
struct TreeAPI: API {
    /// Reads and writes go to the engine's reader and its one write path; the hub alone follows its change log.
    let tree: any TreeReader & TreeCommitter
    let hub: TreeListenHub
    let access: TreeAccess
    let configuration: ServerConfiguration
    let authenticator: RequestAuthenticator
    let pushIDs: PushIDSource
    /// Where tree streams' refusals and the hub's failures are logged.
    let logger: Logger

    /// The tree API on `tree` judged by `rules`' tree rules, with its listener hub (not yet started: the application
    /// starts and stops it), which re-judges open streams whenever the rules change. The keep-alive interval is 30 s,
    /// as Firebase's, unless `HEARTH_TREE_KEEPALIVE_SECONDS` says otherwise (tests shorten it to see keep-alives and
    /// re-checks).
    static func make(
        tree: any TreeStore, rules: RulesEngine, configuration: ServerConfiguration,
        authenticator: RequestAuthenticator, logger: Logger, clock: WallClock = .system
    ) -> TreeAPI {
        let keepAlive = ProcessInfo.processInfo.environment["HEARTH_TREE_KEEPALIVE_SECONDS"].flatMap(Double.init) ?? 30
        let access = TreeAccess(engine: rules, tree: tree, clock: clock)
        var listen = TreeListenConfiguration()
        listen.keepAliveInterval = .milliseconds(Int64((max(0.05, keepAlive) * 1000).rounded()))
        let hub = TreeListenHub(
            source: tree, configuration: listen, authorizer: TreeListenAccess(access: access),
            report: { problem in problem.log(to: logger) }, nowMillis: { clock.milliseconds })
        rules.onDatabaseRulesChange { [weak hub] in hub?.recheckAccess() }
        return TreeAPI(
            tree: tree, hub: hub, access: access, configuration: configuration, authenticator: authenticator,
            pushIDs: PushIDSource(clock: clock), logger: logger)
    }

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard request.path.hasSuffix(".json") else { return nil }
        if request.method == "OPTIONS" { return ("tree.options", .response(TreeResponses.options)) }
        var route = "tree.invalid"
        do {
            guard let parsed = try TreeRequest.parse(request, projectID: configuration.projectID) else { return nil }
            route = Self.routeName(parsed)
            let auth = try identity(of: request)
            return (route, try dispatch(parsed, request, auth: auth))
        } catch {
            return (route, .response(TreeResponses.error(error)))
        }
    }

    /// The caller: the one place a request's identity is worked out and handed to the tree and its rules.
    ///
    /// An administrator may act as someone else with `auth_variable_override` (a JSON object, or `null` for an
    /// unauthenticated caller), as Firebase's REST API allows and the Admin SDKs' `databaseAuthVariableOverride`
    /// sends: the request is then judged by the rules with that `auth`.
    private func identity(of request: HTTPRequest) throws(HearthError) -> AuthContext? {
        let auth: AuthContext?
        do {
            auth = try authenticator.authenticate(request)
        } catch {
            throw HearthError(.unauthenticated, "Could not parse auth token.")
        }
        guard auth?.isAdmin == true, let override = request.queryValue("auth_variable_override") else { return auth }
        switch try? JSONParser.parse(override) {
        case .null?:
            return nil
        case .object(let members)?:
            return AuthContext(
                uid: members["uid"]?.stringValue, claims: members["token"]?.objectValue ?? [:], isAdmin: false)
        default:
            throw .invalidArgument("auth_variable_override must be a JSON object or null.")
        }
    }

    private func dispatch(
        _ request: TreeRequest, _ http: HTTPRequest, auth: AuthContext?
    ) throws(HearthError) -> HTTPReply {
        if request.target == .rules { return try rules(request, http, auth: auth) }
        switch request.method {
        case "GET":
            guard try access.canRead(request.namespace, request.path, auth, query: request.query) else {
                throw Self.permissionDenied
            }
            return request.isStream ? try stream(request, http, auth: auth) : .response(try read(request, auth: auth))
        case "PUT", "POST", "PATCH", "DELETE":
            // Writes are judged by the store, inside their transaction (`TreeAccess.writeJudge`).
            return try write(request, http, auth: auth)
        default:
            throw HearthError(
                .unimplemented, "Method \(http.method) is not supported; use GET, PUT, POST, PATCH or DELETE.")
        }
    }

    /// Firebase's answer to anything the rules refuse: 401 `{"error":"Permission denied"}`.
    static let permissionDenied = HearthError(.permissionDenied, "Permission denied")

    private static func routeName(_ request: TreeRequest) -> String {
        switch request.target {
        case .rules: return "tree.rules"
        case .priority: return "tree.priority"
        case .data: return request.isStream ? "tree.stream" : "tree." + request.method.lowercased()
        }
    }
}

/// The server's push-ID generator: one per process, so IDs strictly increase across all requests.
final class PushIDSource: Sendable {
    private let generator = Mutex(PushIDGenerator())
    private let clock: WallClock

    /// A source whose IDs start with `clock`'s time.
    init(clock: WallClock = .system) { self.clock = clock }

    /// The next push ID.
    func next() -> String {
        let now = clock.milliseconds
        return generator.withLock { generator in
            var random = SystemRandomNumberGenerator()
            return generator.next(nowMillis: now) { UInt8.random(in: 0..<64, using: &random) }
        }
    }
}
