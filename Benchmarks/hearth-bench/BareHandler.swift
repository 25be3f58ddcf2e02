import HearthHTTP

/// The HTTP baseline: libmicrohttpd through HearthHTTP, answering every request with the same small JSON
/// response and doing nothing else. What Hearth adds on top (routing, parsing, storage, encoding) is the gap
/// between this figure and Hearth's.
struct BareHandler: HTTPResponder {
    private static let response = HTTPResponse.json(bytes: Array(#"{"ok":true}"#.utf8))

    /// The constant response, whatever the request.
    func reply(to request: HTTPRequest) -> HTTPReply {
        .response(Self.response)
    }

    /// Starts a bare server on 127.0.0.1 with a free port, runs `body` with its base URL, then stops it.
    static func withServer<T>(threads: Int, _ body: (String) throws -> T) throws -> T {
        var configuration = HTTPServer.Configuration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = threads
        let server = HTTPServer(configuration: configuration, responder: BareHandler())
        try server.start()
        defer { server.stop(gracePeriod: .seconds(2)) }
        return try body("http://127.0.0.1:\(server.port)")
    }
}
