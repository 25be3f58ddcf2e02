/// How a responder answers a request.
public enum HTTPReply: Sendable {
    /// Answer now, on the calling server thread.
    case response(HTTPResponse)
    /// Answer later from any thread. The server suspends the connection before calling the closure, so `respond`
    /// may be called at once (even before the closure returns) or much later. Only the first call counts; later
    /// calls are ignored. If the server stops before `respond` is called, the client gets a 503 and a late
    /// `respond` is ignored.
    case deferred(@Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
    /// A long-lived streaming response (Server-Sent Events).
    case stream(HTTPEventStream)
}

/// Produces the reply to each request. Called on the server's threads, concurrently, so it must not block for long:
/// slow work belongs in a `.deferred` reply.
public protocol HTTPResponder: Sendable {
    /// The reply to `request`.
    func reply(to request: HTTPRequest) -> HTTPReply
}

/// A responder made from a closure, for tests and small servers.
public struct HTTPClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) -> HTTPReply

    /// A responder that calls `body` for every request.
    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPReply) {
        self.body = body
    }

    /// The reply `body` gives for `request`.
    public func reply(to request: HTTPRequest) -> HTTPReply {
        body(request)
    }
}
