import Foundation
import HearthCore
import HearthHTTP
import HearthStore

/// The server's one responder: routes each request to its API, and records its metrics and log line.
struct HearthResponder: HTTPResponder {
    /// The APIs, asked in order.
    let apis: [any API]
    let metrics: Metrics
    let logger: Logger
    /// Which browser origins may call the APIs; applied here so every API answers CORS alike.
    let cors: CORSPolicy

    func reply(to request: HTTPRequest) -> HTTPReply {
        let start = DispatchTime.now().uptimeNanoseconds
        if let preflight = cors.preflight(request) {
            finish(route: "cors.preflight", method: request.method, status: preflight.status, start: start)
            return .response(preflight)
        }
        let (route, reply) = route(request)
        let corsHeaders = cors.responseHeaders(for: request)
        switch reply {
        case .response(var response):
            finish(route: route, method: request.method, status: response.status, start: start)
            if let corsHeaders { response.headers.append(contentsOf: corsHeaders) }
            return .response(response)
        case .deferred(let work):
            // Only what the log line needs is kept until the answer, not the whole request with its body.
            let method = request.method
            return .deferred { [metrics, logger] respond in
                work { response in
                    Self.finish(
                        route: route, method: method, status: response.status, start: start, metrics: metrics,
                        logger: logger)
                    guard let corsHeaders else { return respond(response) }
                    var response = response
                    response.headers.append(contentsOf: corsHeaders)
                    respond(response)
                }
            }
        case .stream(let stream):
            finish(route: route, method: request.method, status: 200, start: start)
            if let corsHeaders { stream.addHeaders(corsHeaders) }
            return reply
        }
    }

    private func finish(route: String, method: String, status: Int, start: UInt64) {
        Self.finish(route: route, method: method, status: status, start: start, metrics: metrics, logger: logger)
    }

    /// Records a finished request's metrics and, at debug level or for a server error, its log line.
    private static func finish(
        route: String, method: String, status: Int, start: UInt64, metrics: Metrics, logger: Logger
    ) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        metrics.record(route: route, status: status, seconds: seconds)
        if logger.level <= .debug || status >= 500 {
            logger.log(
                status >= 500 ? .error : .debug, "request",
                [
                    "method": .string(method), "route": .string(route), "status": .int(status),
                    "ms": .double((seconds * 1e5).rounded() / 100),
                ])
        }
    }

    private func route(_ request: HTTPRequest) -> (String, HTTPReply) {
        for api in apis {
            if let answer = api.reply(to: request) { return answer }
        }
        return (
            "unknown",
            .response(
                Responses.error(
                    .notFound(
                        "No API at \(request.method) \(request.path.prefix(200)). See the README for the routes Hearth serves."
                    ))
            )
        )
    }
}
