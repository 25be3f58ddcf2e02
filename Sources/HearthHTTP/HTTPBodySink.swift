/// Where a streamed request body goes, chunk by chunk, instead of into `HTTPRequest.body`.
///
/// A responder opts a request in from `HTTPResponder.bodyPlan(for:)` once its head is in. Every call comes from the
/// connection's own server thread, one at a time and in order, so a sink needs no ordering logic of its own; it is
/// `Sendable` because it crosses from the responder to that thread.
///
/// Backpressure: `receive` runs before the next bytes are read from the socket, so a sink that writes each chunk to
/// disk before returning lets the client's TCP window, not the server's memory, absorb a slow disk. libmicrohttpd
/// hands over at most one connection buffer (`connectionMemoryLimit`) per call.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// The largest body accepted. A declared `Content-Length` above it is answered before any body byte is read; a
    /// chunked body that grows past it is read to its end and discarded.
    var maxBodyBytes: Int { get }

    /// Takes the next chunk. Returns `false` to refuse the rest of the body (a full disk, a malformed part): the
    /// server then reads and discards it, and `complete` learns `.refused`.
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool

    /// The body has ended (every byte received, too large, or refused); answers the request. `request` is the head
    /// with an empty body. For `.tooLarge` found from the declared length, only a `.response` is sent as it is (any
    /// other reply becomes a plain 413), because the connection is answered before its body is read.
    func complete(_ outcome: HTTPBodyOutcome, request: HTTPRequest) -> HTTPReply

    /// The client went away (or the server stopped) before the body ended; `complete` is never called. The sink
    /// drops whatever it kept.
    func abandon()
}

/// How a streamed request body ended.
public enum HTTPBodyOutcome: Sendable, Equatable {
    /// Every byte arrived and was accepted.
    case complete(byteCount: Int)
    /// The body was larger than the sink's `maxBodyBytes`.
    case tooLarge
    /// The sink refused a chunk; the rest was discarded.
    case refused
}

/// What happens to a request's body, decided from its head.
public enum HTTPBodyPlan: Sendable {
    /// Buffered up to `HTTPServer.Configuration.maxBodyBytes` and handed to `HTTPResponder.reply(to:)`.
    case buffered
    /// Handed chunk by chunk to the sink, which answers the request once the body ends.
    case streamed(any HTTPBodySink)
    /// Answered at once from the head, before any body byte is read; the connection closes after the answer.
    case reject(HTTPResponse)
}
