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
        request.remoteAddress = "127.0.0.1"
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
