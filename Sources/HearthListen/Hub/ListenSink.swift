/// Where one session's responses go: the transport (an SSE stream today, a gRPC stream later).
///
/// The hub calls it from its own thread, one call at a time per session, in order. Implementations only queue the
/// bytes: a sink that blocks stalls every listener.
public protocol ListenSink: AnyObject, Sendable {
    /// Queues `responses`, in order, as one unit. Returns `false` when the client is gone or has fallen too far
    /// behind (its buffer is full); the hub then ends the session.
    func send(_ responses: [ListenResponse]) -> Bool
    /// Queues a keep-alive that carries no response, so idle streams survive proxies and dead clients are noticed.
    /// Returns `false` like `send`.
    func heartbeat() -> Bool
    /// Ends the stream after what is queued (the session ended on the server's side). Idempotent.
    func close()
}
