import HearthCore
import HearthHTTP

/// Responses in the Realtime Database REST API's conventions: JSON bodies, errors as `{"error": "…"}`, and the
/// `print`, `callback` and `download` options.
enum TreeResponses {
    /// How a response body is printed.
    struct Printing: Sendable {
        /// `print=pretty`.
        var pretty = false
        /// `print=silent`: 204 and no body for successful requests.
        var silent = false
        /// `callback=name`: JSONP.
        var callback: String?
        /// `download=name`: sent as an attachment.
        var download: String?
    }

    /// A JSON value in `printing`'s form.
    static func json(
        _ value: JSONValue, status: Int = 200, _ printing: Printing = Printing(), headers: HTTPHeaders = []
    ) -> HTTPResponse {
        if printing.silent && status < 300 { return HTTPResponse(status: 204, headers: headers) }
        var body: [UInt8] = []
        JSONWriter.write(value, into: &body, pretty: printing.pretty)
        return bytes(body, status: status, printing, headers: headers)
    }

    /// Already-encoded JSON bytes in `printing`'s form.
    static func bytes(
        _ json: [UInt8], status: Int = 200, _ printing: Printing = Printing(), headers: HTTPHeaders = []
    ) -> HTTPResponse {
        var headers = headers
        var body = json
        if let callback = printing.callback {
            headers.add(name: "Content-Type", value: "application/javascript; charset=utf-8")
            body = Array("\(callback)(".utf8) + json + Array(");".utf8)
        } else {
            headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        }
        if let download = printing.download {
            headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(download)\"")
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// `{"error": "…"}` with the status the Realtime Database uses for the error's code.
    static func error(_ error: HearthError) -> HTTPResponse {
        var body = Array(#"{"error":"#.utf8)
        JSONWriter.appendString(error.message, into: &body)
        body.append(UInt8(ascii: "}"))
        return bytes(body, status: status(for: error.code))
    }

    /// The Realtime Database's status for a code: 400 for bad requests, 401 for credentials and permissions, 412
    /// for stale ETags, 413 for oversized writes, 404, 405, 500, 503.
    static func status(for code: ErrorCode) -> Int {
        switch code {
        case .invalidArgument, .outOfRange: 400
        case .unauthenticated, .permissionDenied: 401
        case .notFound: 404
        case .failedPrecondition: 412
        case .resourceExhausted: 413
        case .unimplemented: 405
        case .unavailable: 503
        default: 500
        }
    }

    /// The answer to a plain `OPTIONS` (no CORS preflight: the responder answers those for every API).
    static let options = HTTPResponse(
        status: 200, headers: [("Allow", "GET, PUT, POST, PATCH, DELETE, OPTIONS")])
}
