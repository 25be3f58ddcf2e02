import HearthCore
import HearthHTTP
import HearthListen
import HearthStore

/// `…/documents:listen`: `GET` opens a session's event stream, `POST ?session=ID` adds or removes one target
/// (docs/realtime.md).
///
/// With a ``NodeRelay`` (several nodes on PostgreSQL), a session's ID starts with its node's ID and a dot (the hub's
/// prefix), and a POST for another node's session is authenticated here, then relayed to that node, whose answer —
/// `{}` or its error — is this one's.
struct ListenEndpoint: Sendable {
    let hub: ListenHub
    let authenticator: RequestAuthenticator
    let settings: ListenSettings
    var relay: (any NodeRelay)? = nil

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
        if hub.database(ofSession: session) == nil, let relay, let node = Self.node(holding: session),
            node != relay.nodeID
        {
            let relayed = RelayedListenRequest(
                session: session, database: route.database, caller: caller, body: request.body)
            guard let answer = try relay.send(relayed.encoded(), to: node) else {
                throw ListenHub.unknownSession(session)
            }
            if let error = RelayedListenRequest.error(inAnswer: answer) { throw error }
            return .response(Responses.emptyObject)
        }
        try submit(session: session, database: route.database, caller: caller, body: request.body)
        return .response(Responses.emptyObject)
    }

    /// A POST's work on the node holding its session, whichever node it came to.
    private func submit(
        session: String, database routed: DatabaseName, caller: ListenCaller, body: [UInt8]
    ) throws(HearthError) {
        guard let database = hub.database(ofSession: session) else { throw ListenHub.unknownSession(session) }
        guard database == routed else {
            throw .invalidArgument("Listen session \"\(session.prefix(64))\" belongs to \(database), not \(routed).")
        }
        let listenRequest = try ListenRequest(firestoreJSON: try RequestParameters.body(body), database: database)
        try hub.submit(listenRequest, session: session, caller: caller)
    }

    /// Answers a POST another node relayed here (the relay's handler).
    func answer(relayed message: [UInt8]) -> [UInt8] {
        do throws(HearthError) {
            let relayed = try RelayedListenRequest(decoding: message)
            try submit(session: relayed.session, database: relayed.database, caller: relayed.caller, body: relayed.body)
            return RelayedListenRequest.answer(nil)
        } catch {
            return RelayedListenRequest.answer(error)
        }
    }

    /// The node a session ID names (before its first dot), `nil` for an ID without one.
    static func node(holding session: String) -> String? {
        guard let dot = session.firstIndex(of: "."), dot != session.startIndex else { return nil }
        return String(session[..<dot])
    }
}
