import HearthCore
import HearthHTTP

/// Building HTTP responses in Google's JSON conventions.
enum Responses {
    /// A JSON response.
    static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: bytes)
    }

    /// Shared by every JSON response, so answering one allocates no header list.
    private static let jsonHeaders: HTTPHeaders = [("Content-Type", "application/json; charset=utf-8")]

    /// A plain-text response.
    static func text(
        _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    /// The google.rpc.Status body of an error: `{"error":{"code":404,"message":"…","status":"NOT_FOUND"}}`.
    static func error(_ error: HearthError) -> HTTPResponse {
        var body: [UInt8] = []
        body.append(contentsOf: #"{"error":{"code":"#.utf8)
        JSONWriter.appendInteger(Int64(error.code.httpStatus), into: &body)
        body.append(contentsOf: #","message":"#.utf8)
        JSONWriter.appendString(error.message, into: &body)
        body.append(contentsOf: #","status":"#.utf8)
        JSONWriter.appendString(error.code.name, into: &body)
        body.append(contentsOf: "}}".utf8)
        return json(body, status: error.code.httpStatus)
    }

    /// `{}`.
    static let emptyObject = json(Array("{}".utf8))
}
