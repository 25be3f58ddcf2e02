/// One HTTP request to another server (an identity provider's discovery document, keys or API).
public struct OutboundRequest: Sendable {
    /// `GET` or `POST`.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Header fields, sent as given.
    public var headers: [(name: String, value: String)]
    /// The body of a `POST`.
    public var body: [UInt8]
    /// Seconds for the whole exchange, connecting included.
    public var timeoutSeconds: Int = 10
    /// The largest response body read; a longer one fails with ``OutboundHTTPError/Kind/tooLarge``.
    public var maximumResponseBytes: Int = 1024 * 1024
    /// Allow plain `http` (tests against a loopback server); otherwise only `https` is spoken.
    public var allowPlainHTTP: Bool = false

    /// A request for `url`.
    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [])
    {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to an ``OutboundRequest``.
public struct OutboundResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// Header fields of the final response, names lower-cased; a repeated field keeps its last value.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// A response (tests build their own).
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why an ``OutboundRequest`` got no response.
public struct OutboundHTTPError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The URL is malformed or its scheme is not allowed.
        case invalidURL
        /// Connecting, TLS or the exchange failed, or it took longer than the timeout.
        case transport
        /// The body was longer than allowed.
        case tooLarge
    }

    /// What went wrong.
    public var kind: Kind
    /// libcurl's explanation; it names the host, never a token (tokens travel in headers and bodies).
    public var description: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
