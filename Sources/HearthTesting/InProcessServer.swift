import Foundation
public import HearthCore
import HearthHTTP
public import HearthLog
public import HearthServer
import Synchronization

/// A whole `HearthApplication` on a fresh data directory, answering requests in process: each request goes to the
/// same responder the HTTP server calls (routing, rules, CORS, error envelopes, the log line), without a socket or a
/// port. Uploads reach the storage APIs' body sinks in one chunk; for streams (`text/event-stream`) use the live
/// binary (``HearthProcess``).
public final class InProcessServer: Sendable {
    /// The application.
    public let application: HearthApplication
    /// Its data directory, removed by ``stop()``.
    public let directory: TemporaryDirectory
    /// The log lines it wrote (JSON objects), oldest first.
    public var logLines: [JSONValue] { log.lines.withLock { $0 }.compactMap { try? JSONParser.parse(Array($0.utf8)) } }
    private let log: LineLog

    /// The application's log lines, kept for the test.
    private final class LineLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// Starts an application in dev mode (unless `configure` says otherwise) reading `clock` (the system's by
    /// default; pass a ``TestClock``'s `wallClock` to control time), logging at `logLevel` into ``logLines``.
    public init(
        clock: WallClock = .system, logLevel: Logger.Level = .info,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        let directory = try TemporaryDirectory("hearth-inprocess")
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory.path
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.devMode = true
        configure(&configuration)
        let log = LineLog()
        let logger = Logger(level: logLevel) { line in log.lines.withLock { $0.append(line) } }
        do {
            application = try HearthApplication(configuration: configuration, logger: logger, clock: clock)
            try application.startInProcess()
        } catch {
            directory.remove()
            throw error
        }
        self.directory = directory
        self.log = log
    }

    /// Answers one request, waiting for a deferred answer. `path` is without the query; query items may repeat.
    /// - Throws: ``HarnessError`` for a streaming answer, which needs a socket.
    public func request(
        _ method: String, _ path: String, query: [(String, String)] = [], headers: [String: String] = [:],
        body: [UInt8] = []
    ) async throws -> HTTPResult {
        var request = HTTPRequest(method: method, path: path)
        request.query = query.map { HTTPQueryItem(name: $0.0, value: $0.1) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if !body.isEmpty, !request.headers.contains("Content-Type") {
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        request.body = body
        // As if from a client on 127.0.0.1: a test that lists it in `trustedProxies` speaks as that proxy.
        application.configuration.trustedProxies.resolve(&request, peer: "127.0.0.1")
        let response: HTTPResponse
        switch application.reply(to: request) {
        case .response(let answer):
            response = answer
        case .deferred(let start):
            response = await withCheckedContinuation { continuation in
                let once = Mutex(false)
                start { answer in
                    guard
                        once.withLock({ done in
                            defer { done = true }
                            return !done
                        })
                    else { return }
                    continuation.resume(returning: answer)
                }
            }
        case .stream(let stream):
            stream.close()
            throw HarnessError(
                "\(method) \(path) answered with a stream; streams need the live server (HearthProcess).")
        }
        var lowered: [String: String] = [:]
        for (name, value) in response.headers { lowered[name.lowercased()] = value }
        return HTTPResult(status: response.status, headers: lowered, body: response.body)
    }

    /// Answers one request with a JSON body.
    public func request(
        _ method: String, _ path: String, query: [(String, String)] = [], headers: [String: String] = [:],
        json: String
    ) async throws -> HTTPResult {
        try await request(method, path, query: query, headers: headers, body: Array(json.utf8))
    }

    /// Stops the application and removes its data.
    public func stop() {
        application.stop()
        directory.remove()
    }
}

extension InProcessServer {
    /// What one gRPC call answered: its messages in order, and its status (`nil` for OK).
    public struct GRPCResult: Sendable {
        /// The answer messages.
        public var messages: [[UInt8]]
        /// The status; `nil` when OK.
        public var status: HearthError?
    }

    /// Runs one call of the Firestore gRPC service (`method` such as `Commit`) with `requests`, its client side
    /// closed after the last, and `metadata` (lowercase names, as gRPC sends them).
    public func grpc(_ method: String, _ requests: [[UInt8]], metadata: [String: String] = [:]) async -> GRPCResult {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        for request in requests { continuation.yield(request) }
        continuation.finish()
        let collected = Mutex<[[UInt8]]>([])
        var headers = HTTPHeaders()
        for (name, value) in metadata { headers.add(name: name, value: value) }
        let status = await application.serveGRPC(
            path: "/google.firestore.v1.Firestore/\(method)", metadata: headers, remoteAddress: "127.0.0.1",
            requests: stream, send: { message in collected.withLock { $0.append(message) } })
        return GRPCResult(messages: collected.withLock { $0 }, status: status)
    }

    /// Opens a streaming call (`Listen`, `Write`) whose requests the test sends one at a time; the answers arrive
    /// on the returned stream, which ends with the call's status. `cancel` is the client cancelling the call.
    public func openGRPC(
        _ method: String, metadata: [String: String] = [:]
    ) -> (
        send: AsyncThrowingStream<[UInt8], any Error>.Continuation, answers: AsyncStream<GRPCEvent>,
        cancel: @Sendable () -> Void
    ) {
        let (requests, requestInput) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        let (answers, answerInput) = AsyncStream.makeStream(of: GRPCEvent.self)
        var headers = HTTPHeaders()
        for (name, value) in metadata { headers.add(name: name, value: value) }
        let application = self.application
        let call = Task {
            let status = await application.serveGRPC(
                path: "/google.firestore.v1.Firestore/\(method)", metadata: headers, remoteAddress: "127.0.0.1",
                requests: requests, send: { message in answerInput.yield(.message(message)) })
            answerInput.yield(.end(status))
            answerInput.finish()
        }
        return (requestInput, answers, { call.cancel() })
    }

    /// One event of a streaming call: an answer, or its end with its status (`nil` for OK).
    public enum GRPCEvent: Sendable {
        /// An answer message.
        case message([UInt8])
        /// The call ended.
        case end(HearthError?)
    }
}
