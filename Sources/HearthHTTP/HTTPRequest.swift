/// One query-string argument, already decoded (`+` → space, `%XX` → byte).
public struct HTTPQueryItem: Sendable, Equatable {
    /// The argument's name.
    public var name: String
    /// The argument's value; empty when the query held the bare name (`?flag`).
    public var value: String

    /// A query argument.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete HTTP request as handed to an `HTTPResponder`: the body is fully received before the responder runs.
public struct HTTPRequest: Sendable {
    /// The method exactly as sent, e.g. `"GET"`. A `HEAD` request stays `"HEAD"`; the server drops the body of
    /// whatever response is given to it, so a responder may answer `HEAD` exactly as it answers `GET`.
    public var method: String
    /// The URL path without the query string, percent-decoded.
    public var path: String
    /// Every query argument in order, duplicates kept (`updateMask.fieldPaths=a&updateMask.fieldPaths=b`).
    public var query: [HTTPQueryItem]
    /// The request header fields in the order received.
    public var headers: HTTPHeaders
    /// The request body; empty when `bodyTooLarge` is set.
    public var body: [UInt8]
    /// The client's IP address as text (`"127.0.0.1"`, `"::1"`): the TCP peer's, or, when the peer is one of
    /// `HTTPServer.Configuration.trustedProxies`, the client its `X-Forwarded-For` names.
    public var remoteAddress: String
    /// Whether a trusted proxy (`HTTPServer.Configuration.trustedProxies`) says the client reached it over HTTPS
    /// (`X-Forwarded-Proto: https`); always `false` for any other peer, whose header is its own claim.
    public var isForwardedHTTPS: Bool
    /// Set when the body exceeded `HTTPServer.Configuration.maxBodyBytes`. The server then stopped buffering and
    /// discarded the rest, so the responder can answer with its own error format.
    public var bodyTooLarge: Bool

    /// A request built in-process, for tests and for routing one request through another responder.
    public init(
        method: String = "GET", path: String, query: [HTTPQueryItem] = [], headers: HTTPHeaders = [],
        body: [UInt8] = [], remoteAddress: String = "127.0.0.1", isForwardedHTTPS: Bool = false,
        bodyTooLarge: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.isForwardedHTTPS = isForwardedHTTPS
        self.bodyTooLarge = bodyTooLarge
    }

    /// The value of the first query argument called `name` (exact match), or `nil`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The values of every query argument called `name` (exact match), in order.
    public func queryValues(_ name: String) -> [String] {
        query.compactMap { $0.name == name ? $0.value : nil }
    }
}
