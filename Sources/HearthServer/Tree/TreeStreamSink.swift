import HearthCore
import HearthHTTP
import HearthListen
import HearthLog

/// Carries one tree stream over Server-Sent Events: each event is the frame the hub encoded, written as it is. Its
/// capacity is the stream's buffer (`--tree-stream-buffer`); past it the HTTP layer cuts the client off.
final class TreeStreamSink: TreeListenSink {
    let stream: HTTPEventStream
    private let logger: Logger

    init(stream: HTTPEventStream, logger: Logger) {
        self.stream = stream
        self.logger = logger
    }

    var capacity: Int { stream.maxBufferedBytes }

    var isClosed: Bool { stream.isClosed }

    func send(_ event: TreeEvent, frame: [UInt8]) -> Bool {
        stream.send(frame)
    }

    /// The reason goes in an SSE comment (clients skip it; a person with curl reads it) and in the log.
    func refuseOversized(location: TreePath, bytes: Int, capacity: Int) {
        // Logs never carry paths: the sizes say enough.
        logger.log(
            .warning, "tree stream refused: the location is larger than a stream carries",
            ["bytes": .int(bytes), "limit": .int(capacity)])
        stream.send(
            ": the data at \(location) is \(bytes) bytes, more than one stream carries (\(capacity)); stream a smaller location or a query with a limit\n"
        )
    }

    func close() {
        stream.close()
    }
}

/// The tree rules as the tree hub asks them: ``TreeAccess/canRead(_:_:_:query:)`` for the stream's caller,
/// location and query.
struct TreeListenAccess: TreeListenAuthorizer {
    let access: TreeAccess

    func canRead(_ request: TreeListenRequest) throws(HearthError) -> Bool {
        try access.canRead(request.namespace, request.location, request.auth, query: request.query)
    }
}

extension TreeListenProblem {
    /// The log line for the problem: its message and the error's text (which never carries data).
    func log(to logger: Logger) {
        switch self {
        case .snapshotFailed(let error):
            logger.log(.error, "tree stream snapshot failed", ["error": .string(error.message)])
        case .accessCheckFailed(let error):
            logger.log(.error, "tree stream access check failed", ["error": .string(error.message)])
        case .catchUpFailed(let error):
            logger.log(.error, "tree hub could not read the change log; retrying", ["error": .string(error.message)])
        }
    }
}
