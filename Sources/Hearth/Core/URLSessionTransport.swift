public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: `URLSession` (FoundationNetworking on Linux), HTTP/1.1 keep-alive.
public final class URLSessionTransport: Transport {
    private let session: URLSession

    /// Creates a transport with its own ephemeral session, so no cookies or caches leak between apps.
    /// - Parameter timeout: the per-request timeout in seconds.
    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // No URL cache at all: with one, swift-corelibs-foundation looks the cache up on a background queue before
        // the task's protocol exists, and a cancel landing in that window reports its failure after the task left
        // the session's registry, which traps ("Trying to access a behaviour for a task that in not in the
        // registry"; seen in a full test run). The SDK's responses are never cacheable anyway.
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Sends the request with `URLSession`.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: data)
    }
}
