import Foundation
import HearthCore
import HearthHTTP
import HearthStore
import Synchronization

/// The Realtime Database REST API: `/{path}.json` with GET (values, queries, shallow reads, streams), PUT, POST,
/// PATCH and DELETE, `/{path}/.priority.json`, and `/.settings/rules.json`. It claims only paths ending in `.json`,
/// so it sits after the other APIs in the server's list.
struct TreeAPI: API {
    let tree: any TreeStore
    let hub: TreeListenerHub
    let access: TreeAccess
    let configuration: ServerConfiguration
    let authenticator: RequestAuthenticator
    let pushIDs: PushIDSource

    /// The tree API on `tree`, with its listener hub. The keep-alive interval is 30 s, as Firebase's, unless
    /// `HEARTH_TREE_KEEPALIVE_SECONDS` says otherwise (tests shorten it to see keep-alives and re-checks).
    static func make(
        tree: any TreeStore, configuration: ServerConfiguration, authenticator: RequestAuthenticator, logger: Logger
    ) -> TreeAPI {
        let keepAlive = ProcessInfo.processInfo.environment["HEARTH_TREE_KEEPALIVE_SECONDS"].flatMap(Double.init) ?? 30
        let access = TreeAccess.allowAll
        return TreeAPI(
            tree: tree,
            hub: TreeListenerHub(tree: tree, access: access, keepAlive: max(0.05, keepAlive), logger: logger),
            access: access, configuration: configuration, authenticator: authenticator, pushIDs: PushIDSource())
    }

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard request.path.hasSuffix(".json") else { return nil }
        if request.method == "OPTIONS" { return ("tree.options", .response(TreeResponses.preflight)) }
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

    /// The caller: the one place a request's identity is worked out and handed to the tree (and, later, its rules).
    private func identity(of request: HTTPRequest) throws(HearthError) -> AuthContext? {
        do {
            return try authenticator.authenticate(request)
        } catch {
            throw HearthError(.unauthenticated, "Could not parse auth token.")
        }
    }

    private func dispatch(
        _ request: TreeRequest, _ http: HTTPRequest, auth: AuthContext?
    ) throws(HearthError) -> HTTPReply {
        if request.target == .rules { return try rules(request, http, auth: auth) }
        switch request.method {
        case "GET":
            guard access.canRead(request.namespace, request.path, auth) else { throw Self.permissionDenied }
            return request.isStream ? try stream(request, http, auth: auth) : .response(try read(request, auth: auth))
        case "PUT", "POST", "PATCH", "DELETE":
            guard access.canWrite(request.namespace, request.path, auth) else { throw Self.permissionDenied }
            return try write(request, http, auth: auth)
        default:
            throw HearthError(
                .unimplemented, "Method \(http.method) is not supported; use GET, PUT, POST, PATCH or DELETE.")
        }
    }

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

    /// The next push ID.
    func next() -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return generator.withLock { generator in
            var random = SystemRandomNumberGenerator()
            return generator.next(nowMillis: now) { UInt8.random(in: 0..<64, using: &random) }
        }
    }
}
