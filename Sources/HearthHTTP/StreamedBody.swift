/// The server's side of one streamed request body: the sink, the byte count against its limit, and how it ended.
///
/// Touched only by the connection's daemon thread, as `RequestContext` is.
final class StreamedBody {
    let sink: any HTTPBodySink
    private let limit: Int
    private var received = 0
    /// Set once the body stopped being delivered (too large, refused); later bytes are dropped.
    private(set) var stopped: HTTPBodyOutcome?

    init(sink: any HTTPBodySink) {
        self.sink = sink
        limit = max(0, sink.maxBodyBytes)
    }

    /// Whether a declared `Content-Length` already exceeds the limit.
    func declaredTooLarge(_ declared: Int) -> Bool {
        declared > limit
    }

    /// Passes a chunk to the sink, or drops it once the body is over its limit or refused.
    func receive(_ chunk: UnsafeRawBufferPointer) {
        guard stopped == nil else { return }
        guard received + chunk.count <= limit else {
            stopped = .tooLarge
            return
        }
        received += chunk.count
        if !sink.receive(chunk) { stopped = .refused }
    }

    /// How the body ended, once libmicrohttpd reports it complete.
    var outcome: HTTPBodyOutcome {
        stopped ?? .complete(byteCount: received)
    }
}
