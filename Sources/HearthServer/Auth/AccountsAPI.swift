import HearthAuth
import HearthCore
import HearthHTTP
import HearthLog

/// Identity Toolkit v1 and Secure Token on Hearth's one port, as the Firebase Auth emulator serves them:
/// `/identitytoolkit.googleapis.com/v1/accounts:*` and `…/v1/projects/{p}/accounts*` (also without the host
/// prefix), `/securetoken.googleapis.com/v1/token`, the JWKS, the emulator endpoints and the action pages.
struct AccountsAPI: API {
    let service: AccountService
    /// Judges the console's session, which stands for the admin credential here too.
    let authenticator: RequestAuthenticator
    let configuration: ServerConfiguration
    let workers: WorkerPool
    let logger: Logger
    /// The port the server listens on (known only once it started, when `--port 0`).
    let boundPort: @Sendable () -> Int

    static let toolkitPrefix = "/identitytoolkit.googleapis.com"
    private static let toolkitPrefixSlash = toolkitPrefix + "/"

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        let path = request.path
        // Every documents request comes here first. None of the names below starts with `/v1/projects/`, so such a
        // path is settled by comparing bytes, without the string comparisons that follow.
        if Self.isUnderProjects(path) {
            return Self.isProjectAccountsPath(Substring(path)) ? toolkit(request, path: Substring(path)) : nil
        }
        switch path {
        case "/securetoken.googleapis.com/v1/token":
            return ("accounts.token", post(request) { () throws(AuthError) in try refresh(request) })
        case "/.well-known/jwks.json", "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com":
            return ("accounts.jwks", .response(jwks()))
        case "/emulator/action", "/__/auth/action":
            return ("accounts.action", action(request))
        case "/emulator/auth/handler":
            return ("accounts.picker", devPicker(request))
        case Self.handlerPath:
            return ("accounts.handler", authHandler(request))
        default:
            break
        }
        if path.hasPrefix("/emulator/v1/projects/") { return emulator(request) }
        if Self.isAdminConfigPath(path) { return adminConfig(request) }
        // `String.hasPrefix` rather than `Substring.hasPrefix`: the generic one compares characters one by one, and
        // every documents request passes through here.
        var rest = Substring(path)
        if path.hasPrefix(Self.toolkitPrefixSlash) {
            rest = rest.dropFirst(Self.toolkitPrefix.count)
        } else if !(path.hasPrefix("/v1/accounts:") || Self.isProjectAccountsPath(rest)) {
            return nil
        }
        return toolkit(request, path: rest)
    }

    /// `/v1/projects/{p}/accounts…` (but not `/v1/projects/{p}/databases/…`, which is the documents API's).
    /// Every documents request passes through here first, so it compares bytes and allocates nothing.
    static func isProjectAccountsPath(_ path: Substring) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            guard starts(bytes, at: 0, with: "/v1/projects/"),
                let slash = bytes[13...].firstIndex(of: UInt8(ascii: "/"))
            else { return false }
            return starts(bytes, at: slash + 1, with: "accounts")
        }
    }

    /// Whether `path` starts with `/v1/projects/`.
    private static func isUnderProjects(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { starts($0, at: 0, with: "/v1/projects/") }
    }

    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        for k in 0..<count where bytes[offset + k] != prefix.utf8Start[k] { return false }
        return true
    }

    /// Routes `/v1/accounts:{verb}`, `/v1/projects/{p}/accounts` and `/v1/projects/{p}/accounts:{verb}`.
    private func toolkit(_ request: HTTPRequest, path: Substring) -> (route: String, reply: HTTPReply)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[1] == "v1" else {
            return (
                "accounts.unknown",
                .response(
                    AccountsJSON.error(AuthError("NOT_FOUND", status: 404, statusName: "NOT_FOUND", reason: "notFound"))
                )
            )
        }
        let verb: Substring
        var project: String?
        if parts.count == 3, parts[2] == "projects" || parts[2] == "recaptchaParams" {
            return ("accounts.\(parts[2])", .response(clientConfiguration(String(parts[2]), request)))
        }
        if parts.count == 3, parts[2].hasPrefix("accounts:") {
            verb = parts[2].dropFirst("accounts:".count)
        } else if parts.count == 5, parts[2] == "projects", parts[4] == "accounts" || parts[4].hasPrefix("accounts:") {
            project = String(parts[3])
            verb = parts[4] == "accounts" ? "signUp" : parts[4].dropFirst("accounts:".count)
        } else if parts.count >= 4, parts[2] == "projects" {
            let what = parts.count > 4 ? "tenants" : "this project operation"
            return (
                "accounts.unsupported",
                .response(AccountsJSON.error(.notImplemented("\(what) is not supported by Hearth")))
            )
        } else {
            return (
                "accounts.unknown",
                .response(
                    AccountsJSON.error(AuthError("NOT_FOUND", status: 404, statusName: "NOT_FOUND", reason: "notFound"))
                )
            )
        }
        let route = "accounts.\(verb)"
        let caller: Caller
        do {
            if let project { try checkProject(project) }
            caller = try self.caller(request)
        } catch {
            return (route, .response(AccountsJSON.error(error)))
        }
        let context = RequestContext(
            isAdmin: caller == .admin, clientAddress: request.remoteAddress, linkBaseURL: linkBase(request),
            apiKey: apiKey(request))
        if verb == "batchGet" {
            guard request.method == "GET" else { return (route, .response(methodNotAllowed(request.method))) }
            return (route, work(request) { () throws(AuthError) in try batchGet(request, context: context) })
        }
        guard let handler = handler(for: String(verb)) else {
            return (
                route, .response(AccountsJSON.error(.notImplemented("accounts:\(verb) is not supported by Hearth")))
            )
        }
        return (route, post(request) { () throws(AuthError) in try handler(AccountsJSON.body(of: request), context) })
    }

    /// Who is calling an Identity Toolkit endpoint: an admin (valid `Authorization: Bearer`, or the console's
    /// session), or a client with an API key.
    enum Caller: Equatable {
        case admin
        case client
    }

    func caller(_ request: HTTPRequest) throws(AuthError) -> Caller {
        if let authorization = request.headers["Authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer", service.isAdminCredential(String(parts[1])) {
                return .admin
            }
            throw AuthError(
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                status: 401, statusName: "UNAUTHENTICATED", reason: "authError")
        }
        do {
            if try authenticator.consoleSession(request) { return .admin }
        } catch {
            throw AuthError(
                error.message, status: error.code.httpStatus, statusName: error.code.name,
                reason: error.code == .unauthenticated ? "authError" : "forbidden")
        }
        guard apiKey(request) != nil else {
            throw AuthError(
                "The request is missing a valid API key.", status: 403, statusName: "PERMISSION_DENIED",
                reason: "forbidden")
        }
        return .client
    }

    static let adminRequired = AuthError(
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
        status: 401, statusName: "UNAUTHENTICATED", reason: "required")

    func apiKey(_ request: HTTPRequest) -> String? {
        let key = request.queryValue("key") ?? request.headers["X-Goog-Api-Key"]
        return key?.isEmpty == false ? key : nil
    }

    /// Outside development mode only the configured project is served, as the documents API does.
    func checkProject(_ project: String) throws(AuthError) {
        guard configuration.devMode || project == configuration.projectID else {
            throw AuthError("CONFIGURATION_NOT_FOUND", "this server serves project \(configuration.projectID)")
        }
    }

    /// Where links in mail point: the public URL, else the address the server listens on. Never the request's
    /// `Host`, in development mode either: a client chooses its `Host` and could have a victim's reset link (with
    /// its one-time code) point at its own server.
    func linkBase(_ request: HTTPRequest) -> String {
        if let url = configuration.accounts.publicURL { return url }
        let host = ["0.0.0.0", "::", ""].contains(configuration.host) ? "127.0.0.1" : configuration.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(boundPort())"
    }

    func methodNotAllowed(_ method: String) -> HTTPResponse {
        AccountsJSON.error(
            AuthError("Method \(method) is not allowed here.", status: 404, statusName: "NOT_FOUND", reason: "notFound")
        )
    }

    /// A POST whose work runs on the accounts workers.
    func post(_ request: HTTPRequest, _ body: @escaping @Sendable () throws(AuthError) -> HTTPResponse) -> HTTPReply {
        guard request.method == "POST" else { return .response(methodNotAllowed(request.method)) }
        return work(request, body)
    }

    func work(_ request: HTTPRequest, _ body: @escaping @Sendable () throws(AuthError) -> HTTPResponse) -> HTTPReply {
        let overloaded = AccountsJSON.error(
            AuthError("TOO_MANY_ATTEMPTS_TRY_LATER", "the server is busy", status: 503, statusName: "UNAVAILABLE"))
        return workers.reply(overloaded: overloaded) {
            do throws(AuthError) {
                return try body()
            } catch {
                // The responder logs the failure once, with its detail and request ID (`FailedAnswer`).
                return AccountsJSON.error(error)
            }
        }
    }

    /// `GET /v1/projects` (the client SDKs' project configuration) and `GET /v1/recaptchaParams`, answered as the
    /// Auth emulator does: the SDKs only need them to be well-formed.
    func clientConfiguration(_ what: String, _ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" else { return methodNotAllowed(request.method) }
        guard apiKey(request) != nil else {
            return AccountsJSON.error(
                AuthError(
                    "The request is missing a valid API key.", status: 403, statusName: "PERMISSION_DENIED",
                    reason: "forbidden"))
        }
        if what == "projects" {
            return AccountsJSON.response([
                "projectId": .string(configuration.projectID),
                "authorizedDomains": .array(service.allAuthorizedDomains.map { .string($0) }),
            ])
        }
        return AccountsJSON.response(["kind": "identitytoolkit#GetRecaptchaParamResponse"])
    }

    func jwks() -> HTTPResponse {
        let keys: [JSONValue] = service.publishedKeys().map { jwk in .object(jwk.mapValues { .string($0) }) }
        var response = AccountsJSON.response(["keys": .array(keys)])
        // Short, because a rotated key signs at once; JWT libraries also refetch when they meet an unknown kid.
        response.headers.add(name: "Cache-Control", value: "public, max-age=60")
        return response
    }
}
