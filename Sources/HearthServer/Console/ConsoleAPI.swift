import HearthCore
import HearthHTTP

/// The web console at `/console`: static HTML, CSS and JavaScript built into the binary, which talk to Hearth's
/// public APIs from the browser — so everything the console does can also be done with `curl`.
///
/// In development mode it opens directly (those APIs take the emulators' `owner` credential). Otherwise `/console`
/// is a sign-in page asking for the admin key; `POST /console/session` trades the key for a session
/// (`ConsoleSessions`), `DELETE /console/session` ends it, and the console's pages and scripts answer only with a live
/// session. The style sheet and the sign-in script hold no data and are served to anyone.
struct ConsoleAPI: API {
    let configuration: ServerConfiguration
    let authenticator: RequestAuthenticator

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard request.path == "/console" || request.path.hasPrefix("/console/") else { return nil }
        if request.path == "/console/session" {
            return ("console.session", .response(session(request)))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return ("console", .response(Responses.error(HearthError(.unimplemented, "The console serves only GET."))))
        }
        return ("console", .response(page(request)))
    }

    private func page(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/console/console.css": return Self.asset(ConsoleStyle.source, "text/css")
        case "/console/signin.js": return Self.asset(ConsoleSignInScript.source, "text/javascript")
        default: break
        }
        let csrfToken: String?
        if configuration.devMode {
            csrfToken = nil
        } else if let token = ConsoleSessions.token(in: request),
            let session = authenticator.sessions.session(token: token)
        {
            csrfToken = session.csrfToken
        } else {
            switch request.path {
            case "/console", "/console/", "/console/index.html":
                return Self.asset(ConsolePage.signIn(projectID: configuration.projectID), "text/html")
            default:
                return Responses.error(HearthError(.unauthenticated, "Sign in to the console first (at /console)."))
            }
        }
        switch request.path {
        case "/console", "/console/", "/console/index.html":
            var page = Self.asset(
                ConsolePage.html(projectID: configuration.projectID, csrfToken: csrfToken), "text/html")
            // The page carries the session's CSRF token: no cache may keep it.
            page.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
            return page
        default:
            guard let script = ConsoleScripts.byPath[request.path] else {
                return Responses.error(.notFound("No console page at \(request.path.prefix(200))."))
            }
            return Self.asset(script, "text/javascript")
        }
    }

    /// `POST /console/session` signs in with `{"adminKey": "…"}`; `DELETE /console/session` signs out.
    private func session(_ request: HTTPRequest) -> HTTPResponse {
        do throws(HearthError) {
            switch request.method {
            case "POST":
                // A sign-in from another site's page would put the browser in the attacker's session: refused.
                guard ConsoleSessions.isSameOrigin(request) else {
                    throw HearthError(.permissionDenied, "Sign in from this server's own console page.")
                }
                let expected = HearthError.invalidArgument("Expected {\"adminKey\": \"…\"}.")
                let body: JSONValue
                do { body = try JSONParser.parse(request.body) } catch { throw expected }
                guard let key = body["adminKey"]?.stringValue else { throw expected }
                let issued = try authenticator.sessions.signIn(key: key) { authenticator.service.isAdminCredential($0) }
                var answer = Responses.json(
                    JSONValue.object([
                        "csrfToken": .string(issued.csrfToken), "expiresIn": .integer(issued.lifetimeSeconds),
                    ]).serialized())
                answer.headers.add(name: "Set-Cookie", value: ConsoleSessions.cookie(issued, for: request))
                answer.headers.add(name: "Cache-Control", value: "no-store")
                return answer
            case "DELETE":
                guard try authenticator.consoleSession(request), let token = ConsoleSessions.token(in: request) else {
                    throw HearthError(.unauthenticated, "There is no console session to end.")
                }
                authenticator.sessions.signOut(token: token)
                var answer = Responses.emptyObject
                answer.headers.add(name: "Set-Cookie", value: ConsoleSessions.clearingCookie(for: request))
                return answer
            default:
                throw .notFound("Method \(request.method) is not supported here; POST signs in, DELETE signs out.")
            }
        } catch {
            return Responses.error(error)
        }
    }

    /// A console file with the headers that keep it to itself: no script, style or connection from another origin,
    /// no framing, no content sniffing. Document data is only ever set as text by the script, never as HTML.
    static func asset(_ text: String, _ type: String) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "\(type); charset=utf-8"),
                (
                    "Content-Security-Policy",
                    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
                        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
                ),
                ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
                ("Cache-Control", "no-cache"),
            ],
            body: Array(text.utf8))
    }
}

/// The console's scripts by path, loaded in this order by the page (each `defer`, so in order).
enum ConsoleScripts {
    /// (path, source), in load order.
    static let all: [(path: String, source: String)] = [
        ("/console/console.js", ConsoleScript.source),
        ("/console/accounts.js", ConsoleAccountsScript.source),
        ("/console/signin-methods.js", ConsoleSignInMethodsScript.source),
        ("/console/rules.js", ConsoleRulesScript.source),
        ("/console/indexes.js", ConsoleIndexesScript.source),
        ("/console/health.js", ConsoleHealthScript.source),
    ]
    static let byPath: [String: String] = Dictionary(uniqueKeysWithValues: all.map { ($0.path, $0.source) })
}
