import HearthCore
import HearthHTTP
import HearthStore

/// The Firestore REST v1 document API: routes a parsed documents URL to its method.
struct DocumentsAPI: API {
    let store: any DocumentStore
    let configuration: ServerConfiguration
    /// The database of the project this API serves (its store holds that database's documents only).
    var databaseID = "(default)"
    /// `…/documents:listen` (GET the stream, POST a ListenRequest).
    var listen: ListenEndpoint? = nil
    /// Security rules; `nil` checks nothing.
    var access: DocumentAccess? = nil
    /// Where reads whose cost grows with the data run (queries, batch reads, listings), so they never hold an HTTP
    /// thread; `nil` runs them on the calling thread (tests of one handler).
    var readWorkers: WorkerPool? = nil
    /// What read times are taken from.
    var clock: WallClock = .system

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        do {
            guard let route = try DocumentsRoute.parse(request.path) else { return nil }
            return reply(to: request, route: route)
        } catch {
            return ("documents.invalid", .response(Responses.error(error)))
        }
    }

    /// The route name for metrics, and the handler.
    func reply(to request: HTTPRequest, route: DocumentsRoute) -> (route: String, reply: HTTPReply) {
        let name = routeName(request.method, route)
        do {
            try checkDatabase(route.database)
            return (name, try dispatch(request, route))
        } catch {
            return (name, .response(Responses.error(error)))
        }
    }

    private func routeName(_ method: String, _ route: DocumentsRoute) -> String {
        if let verb = route.verb { return "documents.\(verb)" }
        switch (method, route.path.isDocument) {
        case ("GET", true): return "documents.get"
        case ("GET", false): return "documents.list"
        case ("POST", _): return "documents.create"
        case ("PATCH", _): return "documents.patch"
        case ("DELETE", _): return "documents.delete"
        default: return "documents.other"
        }
    }

    func checkDatabase(_ database: DatabaseName) throws(HearthError) {
        if !configuration.devMode && database.project != configuration.projectID {
            throw .notFound(
                "Project \"\(database.project)\" is not served here; this server serves project \"\(configuration.projectID)\"."
            )
        }
        if database.database != databaseID {
            throw .notFound(
                "The database \(database.database) does not exist for project \(database.project); this API serves \(databaseID)."
            )
        }
    }

    private func dispatch(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        if request.bodyTooLarge {
            throw .invalidArgument("Request payload size exceeds the limit: \(configuration.maxBodyBytes) bytes.")
        }
        if route.verb == "listen", let listen { return try listen.reply(to: request, route: route) }
        if let verb = route.verb {
            guard request.method == "POST" else {
                throw methodNotAllowed(
                    request.method, "\(route.database.name(of: route.path)):\(verb)", allowed: "POST")
            }
            switch verb {
            case "commit": return try commit(request, route)
            case "batchWrite": return try batchWrite(request, route)
            case "batchGet": return onWorker { () throws(HearthError) in try batchGet(request, route) }
            case "listCollectionIds":
                return onWorker { () throws(HearthError) in try listCollectionIDs(request, route) }
            case "runQuery": return onWorker { () throws(HearthError) in try runQuery(request, route) }
            case "runAggregationQuery":
                return onWorker { () throws(HearthError) in try runAggregationQuery(request, route) }
            case "beginTransaction": return try beginTransaction(request, route)
            case "rollback": return try rollback(request, route)
            default:
                throw HearthError(.unimplemented, ":\(verb) is not available yet in this version of Hearth.")
            }
        }
        if route.path.isDocument {
            switch request.method {
            case "GET": return try get(request, route)
            case "PATCH": return try patch(request, route)
            case "DELETE": return try delete(request, route)
            default: throw methodNotAllowed(request.method, "a document", allowed: "GET, PATCH, DELETE")
            }
        }
        guard route.path.isCollection else {
            throw methodNotAllowed(
                request.method, "the documents root", allowed: "POST :commit, :batchGet, :listCollectionIds")
        }
        switch request.method {
        case "GET": return onWorker { () throws(HearthError) in try list(request, route) }
        case "POST": return try create(request, route)
        case "PATCH", "DELETE":
            // A document name that names a collection — also what an ID holding an encoded `/` decodes to —
            // is a malformed name, as Firestore answers it, not a missing resource.
            let name = route.database.name(of: route.path)
            throw .invalidArgument("Document name \"\(name)\" lacks \"/\" at index \(name.utf8.count).")
        default: throw methodNotAllowed(request.method, "a collection", allowed: "GET, POST")
        }
    }

    /// Runs `work` on the read workers; its error is answered from there. A full queue answers 503 `UNAVAILABLE`,
    /// which Firebase's clients retry with backoff.
    private func onWorker(_ work: @escaping @Sendable () throws(HearthError) -> HTTPReply) -> HTTPReply {
        let answer = { @Sendable () -> HTTPReply in
            do throws(HearthError) {
                return try work()
            } catch {
                return .response(Responses.error(error))
            }
        }
        guard let readWorkers else { return answer() }
        return readWorkers.reply(
            overloaded: Responses.error(HearthError(.unavailable, "The server is busy; retry shortly.")), answer)
    }

    private func methodNotAllowed(_ method: String, _ target: String, allowed: String) -> HearthError {
        .notFound("Method \(method) is not supported on \(target); use \(allowed).")
    }
}
