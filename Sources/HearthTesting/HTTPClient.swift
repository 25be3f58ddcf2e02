import Foundation
public import HearthCore
public import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as a test sees it.
public struct HTTPResult: Sendable, CustomStringConvertible {
    /// The status code.
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed with HearthCore's JSON parser.
    public func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            Issue.record("Body is not JSON (\(error)): \(text.prefix(500))", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// `HTTP status: body…`.
    public var description: String { "HTTP \(status): \(text.prefix(800))" }
}

/// A small URLSession client bound to one server.
public final class HTTPClient: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    private let session: URLSession

    /// A client of `baseURL`, with no cache and no cookies.
    public init(baseURL: String) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        configuration.timeoutIntervalForResource = 120
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = 8
        session = URLSession(configuration: configuration)
    }

    deinit { session.invalidateAndCancel() }

    /// Percent-encodes a query name or value (everything but RFC 3986 unreserved characters).
    public static func encodeQuery(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    /// Sends one request. `path` is sent as given (already percent-encoded where needed); query items are
    /// encoded here and may repeat a name.
    public func request(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        var text = baseURL + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.encodeQuery($0.0))=\(Self.encodeQuery($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw HarnessError("Not a URL: \(text.prefix(300))") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        // URLSession refuses a GET with a body; Firestore's GETs take none.
        if let body, method != "GET", method != "HEAD" {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw HarnessError("Not an HTTP response") }
        var lowered: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            lowered[String(describing: name).lowercased()] = String(describing: value)
        }
        return HTTPResult(status: http.statusCode, headers: lowered, body: [UInt8](data))
    }

    /// Sends one request with a JSON body.
    public func request(
        _ method: String, _ path: String, query: [(String, String)] = [], json: String, headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        try await request(method, path, query: query, body: Array(json.utf8), headers: headers)
    }

    /// A GET.
    public func get(_ path: String, query: [(String, String)] = []) async throws -> HTTPResult {
        try await request("GET", path, query: query)
    }
}
