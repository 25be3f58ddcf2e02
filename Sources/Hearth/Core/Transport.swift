public import Foundation

/// One HTTP request the SDK sends.
public struct TransportRequest: Sendable, Equatable {
    /// `GET`, `POST`, `PATCH` or `DELETE`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Request headers.
    public var headers: [String: String]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to a ``TransportRequest``.
public struct TransportResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers, names lower-cased.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Carries the SDK's HTTP requests. The default is ``URLSessionTransport``; tests inject a fake so every code path
/// runs without a server.
public protocol Transport: Sendable {
    /// Sends `request` and returns the server's answer, whatever its status.
    /// - Throws: when no answer arrived (the network is down, the server unreachable); the SDK reports that as
    ///   `unavailable` / `networkError`.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Sends `request` and streams the response body as it arrives (for Server-Sent Events). The default
    /// implementation throws `unimplemented`, so fakes that only answer requests need not provide it.
    func stream(_ request: TransportRequest) async throws -> AsyncThrowingStream<Data, any Error>
}
