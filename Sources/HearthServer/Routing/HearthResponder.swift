import Foundation
import HearthCore
import HearthHTTP
import HearthLog
import HearthStore

/// The server's one responder: routes each request to its API, applies the CORS policy, and records each request's
/// metrics and log line — where every error answer is caught once (`FailedAnswer`).
struct HearthResponder: HTTPResponder {
    /// The APIs, asked in order.
    let apis: [any API]
    let metrics: Metrics
    let logger: Logger
    /// Which browser origins may call the APIs; applied here so every API answers CORS alike.
    let cors: CORSPolicy
    /// The APIs whose requests may stream their bodies (file uploads), asked once a head is in.
    var streamingAPIs: [any StreamingAPI] = []

    var streamsBodies: Bool { !streamingAPIs.isEmpty }

    func bodyPlan(for request: HTTPRequest) -> HTTPBodyPlan {
        guard cors.preflight(request) == nil else { return .buffered }
        for api in streamingAPIs {
            guard let (route, plan) = api.bodyPlan(for: request) else { continue }
            let start = DispatchTime.now().uptimeNanoseconds
            switch plan {
            case .buffered:
                return .buffered
            case .reject(let response):
                guard case .response(let answered) = observe(.response(response), route: route, request, start: start)
                else { return plan }
                return .reject(answered)
            case .streamed(let sink):
                return .streamed(
                    ObservedSink(sink) { [self] request, reply in
                        observe(reply, route: route, request, start: start)
                    })
            }
        }
        return .buffered
    }

    func reply(to request: HTTPRequest) -> HTTPReply {
        let start = DispatchTime.now().uptimeNanoseconds
        if var preflight = cors.preflight(request) {
            finish(route: "cors.preflight", method: request.method, &preflight, start: start)
            return .response(preflight)
        }
        let (route, reply) = route(request)
        return observe(reply, route: route, request, start: start)
    }

    /// Records `reply`'s metrics and log line when it is answered, and adds the CORS headers.
    private func observe(_ reply: HTTPReply, route: String, _ request: HTTPRequest, start: UInt64) -> HTTPReply {
        let corsHeaders = cors.responseHeaders(for: request)
        switch reply {
        case .response(var response):
            finish(route: route, method: request.method, &response, start: start)
            if let corsHeaders { response.headers.append(contentsOf: corsHeaders) }
            return .response(response)
        case .deferred(let work):
            // Only what the log line needs is kept until the answer, not the whole request with its body.
            let method = request.method
            return .deferred { [metrics, logger] respond in
                work { response in
                    var response = response
                    Self.finish(
                        route: route, method: method, &response, start: start, metrics: metrics, logger: logger)
                    if let corsHeaders { response.headers.append(contentsOf: corsHeaders) }
                    respond(response)
                }
            }
        case .stream(let stream):
            metrics.record(route: route, status: 200, seconds: Self.seconds(since: start))
            if logger.level <= .debug {
                Self.log(route: route, method: request.method, status: 200, start: start, logger)
            }
            if let corsHeaders { stream.addHeaders(corsHeaders) }
            return reply
        }
    }

    private func finish(route: String, method: String, _ response: inout HTTPResponse, start: UInt64) {
        Self.finish(route: route, method: method, &response, start: start, metrics: metrics, logger: logger)
    }

    /// Records a finished request's metrics and its log line: every failed request (4xx, 5xx) at `info` or above
    /// with its reason, a server failure with its detail and the request ID its client was shown instead; a
    /// successful one at `debug`.
    private static func finish(
        route: String, method: String, _ response: inout HTTPResponse, start: UInt64, metrics: Metrics,
        logger: Logger
    ) {
        metrics.record(route: route, status: response.status, seconds: seconds(since: start))
        guard response.status >= 400 else {
            if logger.level <= .debug {
                log(route: route, method: method, status: response.status, start: start, logger)
            }
            return
        }
        let failure = FailedAnswer.inspect(&response)
        // A client's mistake (4xx, and 501 for what Hearth does not serve) is information; 503 says the server is
        // short of something (disk, a slot) and 500 is a defect.
        let level: Logger.Level =
            switch response.status {
            case 500: .error
            case 502...: .warning
            default: .info
            }
        var extra: [String: LogValue] = [:]
        if let reason = failure.reason { extra["reason"] = .string(reason) }
        if let requestID = failure.requestID { extra["requestId"] = .string(requestID) }
        if let detail = failure.detail { extra["detail"] = .string(String(detail.prefix(1000))) }
        log(route: route, method: method, status: response.status, start: start, logger, level: level, extra)
    }

    private static func log(
        route: String, method: String, status: Int, start: UInt64, _ logger: Logger, level: Logger.Level = .debug,
        _ extra: [String: LogValue] = [:]
    ) {
        var metadata: [String: LogValue] = [
            "method": .string(method), "route": .string(route), "status": .int(status),
            "ms": .double((seconds(since: start) * 1e5).rounded() / 100),
        ]
        metadata.merge(extra) { _, new in new }
        logger.log(level, "request", metadata)
    }

    private static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
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
