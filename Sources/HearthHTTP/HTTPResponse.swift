/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    /// The status code; values outside 100...999 are sent as 500.
    public var status: Int
    /// Header fields to send. `Content-Length`, `Date` and `Transfer-Encoding` are set by the server; a
    /// `Content-Length` given here is ignored.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]
    /// A body read from a file instead of `body` (see `HTTPResponse.file(descriptor:size:range:status:headers:)`);
    /// when set, `body` is ignored.
    public var file: HTTPFileBody?

    /// A response with the given status, headers and body.
    public init(status: Int, headers: HTTPHeaders = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is already-encoded JSON, labelled `application/json; charset=utf-8`.
    public static func json(status: Int = 200, bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: bytes)
    }

    /// A plain-text response, labelled `text/plain; charset=utf-8`.
    public static func text(status: Int = 200, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }
}
