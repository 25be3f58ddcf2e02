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

    func reply(to request: HTTPRequest) -> HTTPReply {
        let start = DispatchTime.now().uptimeNanoseconds
        let (route, reply) = route(request)
        let finish: @Sendable (Int) -> Void = { [metrics, logger] status in
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            metrics.record(route: route, status: status, seconds: seconds)
            if logger.level <= .debug || status >= 500 {
                logger.log(
                    status >= 500 ? .error : .debug, "request",
                    ["method": .string(request.method), "route": .string(route), "status": .int(status),
                     "ms": .double((seconds * 1e5).rounded() / 100)])
            }
        }
        switch reply {
        case .response(let response):
            finish(response.status)
            return reply
        case .deferred(let work):
            return .deferred { respond in
                work { response in
                    finish(response.status)
                    respond(response)
                }
            }
        case .stream:
            finish(200)
            return reply
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
                    .notFound("No API at \(request.method) \(request.path.prefix(200)). See the README for the routes Hearth serves."))
            )
        )
    }
}
