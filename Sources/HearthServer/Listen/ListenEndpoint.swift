import HearthCore
import HearthHTTP
import HearthListen

/// `…/documents:listen`: `GET` opens a session's event stream, `POST ?session=ID` adds or removes one target
/// (docs/realtime.md).
struct ListenEndpoint: Sendable {
    let hub: ListenHub
    let authenticator: RequestAuthenticator
    let settings: ListenSettings

    func reply(to request: HTTPRequest, route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        guard route.path.segments.isEmpty else {
            throw .notFound("Listen on the database: \(route.database.documentsRoot):listen.")
        }
        switch request.method {
        case "GET": return try open(request, route)
        case "POST": return try submit(request, route)
        default:
            throw .notFound(
                "Method \(request.method) is not supported on :listen; use GET (the stream) or POST (a ListenRequest).")
        }
    }

    private func open(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: ["auth"])
        if let accept = request.headers["Accept"], !accept.contains("text/event-stream"), !accept.contains("*/*") {
            throw .invalidArgument("A listen stream is Server-Sent Events: send Accept: text/event-stream.")
        }
        let caller = ListenCaller(auth: try authenticator.authenticate(request))
        // Proxies such as nginx would otherwise hold events back until their buffer fills.
        let stream = HTTPEventStream(headers: [("X-Accel-Buffering", "no")], maxBufferedBytes: settings.bufferBytes)
        let id = try hub.openSession(
            database: route.database, caller: caller, sink: EventStreamListenSink(stream: stream),
            credentialStillValid: authenticator.recheck(request, auth: caller.auth))
        // Queued before the hub can send anything: nothing reaches a session before a request names it, and its
        // first heartbeat is an interval away.
        stream.send(EventStreamListenSink.sessionEvent(id))
        stream.onClose { [hub] in hub.closeSession(id) }
        return .stream(stream)
    }

    private func submit(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: ["session", "auth"])
        guard let session = request.queryValue("session"), !session.isEmpty else {
            throw .invalidArgument("POST …:listen?session=ID: name the session from the stream's first event.")
        }
        let caller = ListenCaller(auth: try authenticator.authenticate(request))
        guard let database = hub.database(ofSession: session) else {
            throw .notFound(
                "Listen session \"\(session.prefix(64))\" does not exist (it ended, or was never opened); open a new stream."
            )
        }
        guard database == route.database else {
            throw .invalidArgument(
                "Listen session \"\(session.prefix(64))\" belongs to \(database), not \(route.database).")
        }
        let listenRequest = try ListenRequest(firestoreJSON: try RequestParameters.body(request), database: database)
        try hub.submit(listenRequest, session: session, caller: caller)
        return .response(Responses.emptyObject)
    }
}
