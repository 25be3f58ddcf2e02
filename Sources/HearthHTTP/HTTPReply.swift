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

    /// Whether any request may have its body streamed; when `false` (the default) `bodyPlan(for:)` is never asked
    /// and every body is buffered.
    var streamsBodies: Bool { get }

    /// What to do with the body of the request whose head is `request` (its `body` is empty): asked once the head
    /// is in, before any body byte is read, when `streamsBodies` is set. The default buffers.
    func bodyPlan(for request: HTTPRequest) -> HTTPBodyPlan
}

extension HTTPResponder {
    /// No body is streamed.
    public var streamsBodies: Bool { false }

    /// Every body is buffered.
    public func bodyPlan(for request: HTTPRequest) -> HTTPBodyPlan { .buffered }
}

/// A responder made from a closure, for tests and small servers.
public struct HTTPClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) -> HTTPReply
    private let plan: (@Sendable (HTTPRequest) -> HTTPBodyPlan)?

    /// A responder that calls `body` for every request; `plan`, when given, decides which bodies stream.
    public init(
        plan: (@Sendable (HTTPRequest) -> HTTPBodyPlan)? = nil, _ body: @escaping @Sendable (HTTPRequest) -> HTTPReply
    ) {
        self.body = body
        self.plan = plan
    }

    /// The reply `body` gives for `request`.
    public func reply(to request: HTTPRequest) -> HTTPReply {
        body(request)
    }

    /// Whether a `plan` was given.
    public var streamsBodies: Bool { plan != nil }

    /// What `plan` says, or buffered.
    public func bodyPlan(for request: HTTPRequest) -> HTTPBodyPlan {
        plan?(request) ?? .buffered
    }
}
