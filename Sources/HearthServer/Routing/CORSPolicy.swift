import HearthCore
import HearthHTTP

/// Which web origins may call Hearth from a browser, and the CORS headers that say so: one policy for every API
/// (accounts, secure token, documents, the listen channel, the tree), applied by the responder.
///
/// Outside development mode no origin is allowed unless `--cors-origins` names it (or `*`); in development mode every
/// origin is, as the Firebase emulators allow. A preflight from an allowed origin gets 204 with the methods and the
/// headers Firebase's web SDKs send; from any other origin it gets 403 and no `Access-Control-Allow-Origin`, so the
/// browser blocks the call.
struct CORSPolicy: Sendable {
    /// The allowed origins as the browser sends them (`https://app.example.com`), compared case-insensitively.
    private let origins: Set<String>
    /// Whether every origin is allowed.
    private let anyOrigin: Bool

    /// The policy for `origins` (`*` allows any); `devMode` allows any origin.
    init(origins: [String], devMode: Bool) {
        let normalized = origins.map { Self.normalize($0) }.filter { !$0.isEmpty }
        self.origins = Set(normalized)
        anyOrigin = devMode || normalized.contains("*")
    }

    /// Whether a browser page on `origin` may read Hearth's answers.
    func allows(origin: String) -> Bool {
        anyOrigin || origins.contains(Self.normalize(origin))
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), or `nil` when
    /// `request` is not one and goes to the APIs.
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", let origin = request.headers["Origin"],
            request.headers.contains("Access-Control-Request-Method")
        else { return nil }
        guard allows(origin: origin) else {
            var refused = Responses.error(
                HearthError(
                    .permissionDenied,
                    "The origin \(origin.prefix(200)) may not call this server (see --cors-origins)."))
            refused.headers.add(name: "Vary", value: "Origin")
            return refused
        }
        var headers = allowHeaders(origin: origin)
        headers.add(name: "Access-Control-Allow-Methods", value: "GET, POST, PUT, PATCH, DELETE, OPTIONS")
        headers.add(name: "Access-Control-Allow-Headers", value: Self.allowedRequestHeaders)
        headers.add(name: "Access-Control-Max-Age", value: "3600")
        return HTTPResponse(status: 204, headers: headers)
    }

    /// The headers to add to an answer to `request`: none without an allowed `Origin`.
    func responseHeaders(for request: HTTPRequest) -> HTTPHeaders? {
        guard let origin = request.headers["Origin"], allows(origin: origin) else { return nil }
        var headers = allowHeaders(origin: origin)
        headers.add(name: "Access-Control-Expose-Headers", value: Self.exposedResponseHeaders)
        return headers
    }

    /// `Access-Control-Allow-Origin` naming the caller's origin, and `Vary: Origin` so caches keep answers for
    /// different origins apart.
    private func allowHeaders(origin: String) -> HTTPHeaders {
        [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    /// The request headers the Firebase web SDKs (auth, firestore, database, storage) and Google's clients send.
    static let allowedRequestHeaders = [
        "authorization", "content-type", "x-client-version", "x-firebase-gmpid", "x-firebase-client",
        "x-firebase-appcheck", "x-firebase-locale", "x-firebase-storage-version", "x-goog-api-client",
        "x-goog-request-params", "x-goog-upload-protocol", "x-goog-upload-command", "x-goog-upload-offset",
        "x-goog-upload-content-type", "x-goog-upload-content-length", "x-goog-upload-header-content-type",
        "x-goog-upload-header-content-length", "x-goog-meta", "google-cloud-resource-prefix", "x-firebase-etag",
        "if-match", "if-none-match", "x-http-method-override", "x-hearth-write-id", "cache-control",
    ].joined(separator: ", ")

    /// The response headers a page may read: the tree's `ETag` and the resumable upload's status and URL.
    static let exposedResponseHeaders = [
        "ETag", "Location", "X-Goog-Upload-Status", "X-Goog-Upload-URL", "X-Goog-Upload-Size-Received",
        "X-Goog-Upload-Chunk-Granularity", "X-Goog-Upload-Control-URL",
    ].joined(separator: ", ")

    /// An origin as compared: no trailing slash, ASCII lowercase (scheme and host are case-insensitive).
    private static func normalize(_ origin: String) -> String {
        var text = origin.trimmingWhitespace()
        while text.hasSuffix("/") { text.removeLast() }
        return text.lowercased()
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
