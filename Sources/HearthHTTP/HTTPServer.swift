import Foundation

/// An HTTP/1.1 server on libmicrohttpd: a pool of event-loop threads (epoll on Linux) calling one `HTTPResponder`.
///
/// Requests reach the responder with their body fully buffered. Replies are immediate, deferred (answered later from
/// any thread while the connection waits at no cost) or streamed (Server-Sent Events).
public final class HTTPServer: Sendable {
    /// Limits and addresses. The defaults suit a development server on one machine.
    public struct Configuration: Sendable {
        /// The IPv4 literal to listen on; only that address is bound.
        public var host: String = "127.0.0.1"
        /// The TCP port; 0 picks a free one (read it back from `HTTPServer.port`).
        public var port: Int = 8080
        /// Event-loop threads. Each owns its connections; a responder that blocks stalls that thread's connections.
        public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
        /// The largest request body buffered; a larger one reaches the responder with `bodyTooLarge` set.
        public var maxBodyBytes: Int = 10 * 1024 * 1024
        /// The most bytes all event streams together may hold for clients that read slower than they are sent to;
        /// past it, the stream whose send would pass it is cut off as its own `maxBufferedBytes` would.
        public var maxStreamBufferBytes: Int = 256 * 1024 * 1024
        /// libmicrohttpd's per-connection memory for headers and I/O buffers (bodies are buffered separately).
        public var connectionMemoryLimit: Int = 16 * 1024
        /// Seconds a connection may sit idle before it is closed. Time spent waiting for a deferred reply or for the
        /// next event of a stream does not count.
        public var connectionTimeout: Int = 300
        /// The most connections open at once; further clients wait in the listen backlog.
        public var connectionLimit: Int = 16384
        /// The most connections open at once from one client address; further ones from it are closed at once, so
        /// one client cannot take every slot. 0 means no per-address limit.
        public var perAddressConnectionLimit: Int = 256
        /// The proxies whose `X-Forwarded-For` names the client a request's `remoteAddress` gives; none by default,
        /// so the TCP peer is the client. The per-address connection limit still counts TCP peers: it acts when a
        /// connection is accepted, before any header is read.
        public var trustedProxies: TrustedProxies = .none
        /// Seconds a request's head (request line and header fields) may take to arrive, counted from the accept
        /// (or, on a kept-alive connection, from the request line), however steadily its bytes trickle in.
        public var headerTimeout: Int = 30
        /// Seconds a request body may go without a byte before the connection is closed; the idle timeout
        /// (`connectionTimeout`) applies again once the response is under way.
        public var bodyTimeout: Int = 30
        /// Receives libmicrohttpd's own diagnostics (malformed requests, resource exhaustion), one line each. `nil`
        /// drops them; start-up failures are reported through `HTTPServerError` either way.
        public var diagnosticsHandler: (@Sendable (String) -> Void)? = nil
        /// Receives every connection that opens with the HTTP/2 preface (gRPC's h2c), as an accepted socket whose
        /// first bytes are still unread; the receiver owns it from then on. When set, Hearth listens itself and
        /// hands the other connections to libmicrohttpd, so both protocols share the port (see `SharedPort`);
        /// `nil` leaves the port to libmicrohttpd alone.
        public var http2Connections: (@Sendable (Int32) -> Void)? = nil

        /// The defaults.
        public init() {}
    }

    let core: ServerCore

    /// A server that will answer every request with `responder` once started.
    public init(configuration: Configuration, responder: any HTTPResponder) {
        core = ServerCore(configuration: configuration, responder: responder)
    }

    deinit {
        core.stop(gracePeriod: .zero)
    }

    /// Binds the address and starts serving.
    ///
    /// - Throws: `HTTPServerError`, e.g. `.addressInUse` with a message naming the address.
    public func start() throws {
        try core.start()
    }

    /// The bound port once started (the real one when configured with 0); 0 before `start()`.
    public var port: Int {
        core.boundPort.load(ordering: .relaxed)
    }

    /// Bytes all event streams hold for their clients now (see `Configuration.maxStreamBufferBytes`).
    public var bufferedStreamBytes: Int { core.streamBudget.bytesInUse }

    /// Client connections open right now, including idle keep-alive ones and event streams.
    public var openConnections: Int {
        core.openConnections.load(ordering: .relaxed)
    }

    /// Stops gracefully: stops accepting, ends every event stream, waits up to `gracePeriod` for in-flight requests
    /// (deferred replies included), answers any still-deferred request with 503, then closes every connection.
    /// Blocks until done. Idempotent: only the first call does anything, later or concurrent calls return at once.
    ///
    /// The stop joins the server's threads, so the first call must not come from a responder, a `respond` callback
    /// run inline, or an `onClose` handler; the same holds for releasing the last reference to the server, which
    /// stops it with no grace period.
    public func stop(gracePeriod: Duration = .seconds(10)) {
        core.stop(gracePeriod: gracePeriod)
    }
}
