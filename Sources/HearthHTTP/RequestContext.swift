/// Per-request state kept in libmicrohttpd's `*con_cls` between access-handler calls.
///
/// Touched only by the connection's daemon thread (the access handler and the completion callback), so it needs no
/// lock.
final class RequestContext {
    /// The body received so far.
    var body: [UInt8] = []
    /// The body exceeded the limit: further upload data is read and dropped.
    var bodyTooLarge = false
    /// Set once a `.deferred` reply suspended the connection.
    var deferred: DeferredReply?
    /// The request turned into an event stream, which does not count as in flight for a graceful stop.
    var isStream = false
    /// The head, built when the headers arrived (for a responder that streams bodies); the body is added at the end.
    var head: HTTPRequest?
    /// The body's sink while a streamed body arrives; `nil` once it is complete (or for a buffered body).
    var streamedBody: StreamedBody?

    init(bodyTooLarge: Bool, expectedBodyBytes: Int) {
        self.bodyTooLarge = bodyTooLarge
        if expectedBodyBytes > 0 { body.reserveCapacity(expectedBodyBytes) }
    }

    /// Appends an upload chunk, or switches to discarding once `limit` would be passed.
    func append(_ data: UnsafeRawBufferPointer, limit: Int) {
        guard !bodyTooLarge else { return }
        guard body.count + data.count <= limit else {
            bodyTooLarge = true
            body = []
            return
        }
        body.append(contentsOf: data)
    }
}
