import HearthHTTP

/// A streamed body's sink wrapped so its answer goes through the responder like any other: metrics, the log line,
/// the error rewrite and the CORS headers.
final class ObservedSink: HTTPBodySink {
    private let inner: any HTTPBodySink
    private let finish: @Sendable (HTTPRequest, HTTPReply) -> HTTPReply

    init(_ inner: any HTTPBodySink, finish: @escaping @Sendable (HTTPRequest, HTTPReply) -> HTTPReply) {
        self.inner = inner
        self.finish = finish
    }

    var maxBodyBytes: Int { inner.maxBodyBytes }

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool { inner.receive(chunk) }

    func complete(_ outcome: HTTPBodyOutcome, request: HTTPRequest) -> HTTPReply {
        finish(request, inner.complete(outcome, request: request))
    }

    func abandon() { inner.abandon() }
}
