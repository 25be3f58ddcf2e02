/// The request head of an HTTP/2 stream: its pseudo-headers apart, its other fields in arrival order.
public struct HTTP2RequestHead: Sendable {
    /// `:method`, e.g. `POST` (gRPC always posts).
    public let method: String
    /// `:path`, e.g. `/google.firestore.v1.Firestore/GetDocument`.
    public let path: String
    /// `:authority`, when the client sent one.
    public let authority: String?
    /// Every regular field, names lowercased (HTTP/2 requires it), pseudo-headers excluded.
    public let headers: [(name: String, value: String)]

    /// A head as the server builds it from a HEADERS frame.
    public init(method: String, path: String, authority: String?, headers: [(name: String, value: String)]) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
    }

    /// The first value of the field `name` (compared lowercased), or `nil`.
    public func value(of name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}

/// Why a stream operation failed.
public enum HTTP2StreamError: Error, Sendable, Equatable {
    /// The peer reset the stream, the connection was lost, or the stream was reset locally.
    case cancelled
    /// The call does not fit the stream's state (data before headers, anything after the trailers).
    case invalidState(String)
}

/// One request stream and its response, as the handler sees it. Every method may be called from any task; calls
/// that send are queued to the connection's thread in the order made.
public final class HTTP2ServerStream: Sendable {
    /// The request's pseudo-headers and fields.
    public let head: HTTP2RequestHead
    /// The client's IP address as text (`127.0.0.1`), or `unknown`.
    public var remoteAddress: String { connection.remoteAddress }
    let id: Int32
    let connection: HTTP2Connection

    init(head: HTTP2RequestHead, id: Int32, connection: HTTP2Connection) {
        self.head = head
        self.id = id
        self.connection = connection
    }

    /// DATA chunks in order; finishes at END_STREAM; throws `HTTP2StreamError.cancelled` on RST_STREAM or
    /// connection loss.
    ///
    /// A chunk is released to the client's flow-control window only when it is taken from here, so a handler that
    /// reads slowly holds at most one receive window of the client's bytes.
    public var requestBody: AsyncThrowingStream<[UInt8], any Error> {
        let connection = connection
        let id = id
        return AsyncThrowingStream(unfolding: { try await connection.nextBodyChunk(stream: id) })
    }

    /// Sends the response head; include `(":status", "200")`.
    /// - Throws: `HTTP2StreamError` when the stream is cancelled or the head was already sent.
    public func sendHeaders(_ headers: [(name: String, value: String)]) async throws {
        try connection.sendHeaders(stream: id, headers)
    }

    /// Queues response bytes; suspends while this stream's unsent bytes exceed the configured budget, so a client
    /// that does not read holds the server to that budget.
    /// - Throws: `HTTP2StreamError` when the stream is cancelled (also while waiting) or not between head and
    ///   trailers.
    public func sendData(_ bytes: [UInt8]) async throws {
        try await connection.sendData(stream: id, bytes)
    }

    /// Ends the response with trailers, after whatever data is queued. Called before any head, it sends a single
    /// HEADERS frame (`:status 200` added if absent) that ends the stream: gRPC's trailers-only response.
    public func sendTrailers(_ trailers: [(name: String, value: String)]) async throws {
        try connection.sendTrailers(stream: id, trailers)
    }

    /// Resets the stream (RST_STREAM with `errorCode`, e.g. 8 CANCEL); the request body then throws.
    public func reset(errorCode: UInt32) {
        connection.reset(stream: id, errorCode: errorCode)
    }

    /// Whether the stream was reset (by either side) or its connection lost before the response ended.
    public var isCancelled: Bool { connection.isCancelled(stream: id) }

    /// Runs `body` once when the stream is reset or its connection lost before the response ended; at once if that
    /// already happened. Never runs for a stream that completed.
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        connection.onCancel(stream: id, body)
    }
}

/// What handles each stream; one task per stream runs it. A stream the handler leaves unfinished when it returns is
/// reset with INTERNAL_ERROR.
public typealias HTTP2StreamHandler = @Sendable (HTTP2ServerStream) async -> Void
