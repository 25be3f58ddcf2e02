internal import CNGHTTP2
import Foundation

/// A small HTTP/2 client with prior knowledge (h2c) on nghttp2's client session, driven step by step by its caller:
/// submit requests, then `pump` the socket until a condition holds. The transport tests drive the server with it,
/// and `hearth-bench` its gRPC loads; it is no general-purpose client (no TLS, no redirects, whole bodies kept).
///
/// Blocking: from async code, call it on a thread of its own so that no concurrency thread waits.
/// `@unchecked Sendable`: only one thread at a time drives it (the caller hands it from step to step).
public final class HTTP2Client: @unchecked Sendable {
    /// What one stream has received so far.
    public struct Response: Sendable {
        /// The response head, `:status` first.
        public var headers: [(name: String, value: String)] = []
        /// Trailing headers (gRPC's status).
        public var trailers: [(name: String, value: String)] = []
        /// DATA received and not yet taken (`takeData`).
        public var data: [UInt8] = []
        /// The close's error code (0 for a clean end, 7 REFUSED_STREAM, ...), once closed.
        public var closeCode: UInt32?
        /// The `:status` pseudo-header.
        public var status: String? { headers.first { $0.name == ":status" }?.value }
        /// The first trailer called `name`.
        public func trailer(_ name: String) -> String? { trailers.first { $0.name == name }?.value }
        /// `grpc-status` from the trailers, or from the head of a trailers-only response.
        public var grpcStatus: String? { (trailers + headers).first { $0.name == "grpc-status" }?.value }
    }

    struct Body {
        var bytes: [UInt8]
        var offset = 0
        var ended: Bool
    }

    /// The connected socket; closed with the client.
    public let fd: Int32
    var session: OpaquePointer?
    /// Every stream opened, until `remove(stream:)`.
    public var responses: [Int32: Response] = [:]
    var bodies: [Int32: Body] = [:]
    /// GOAWAY frames received.
    public var goAways: [(lastStreamID: Int32, errorCode: UInt32)] = []
    /// Whether the server closed the connection (or the session failed).
    public var peerClosed = false
    /// Whether received DATA is given back to the server's window; `false` makes a reader that does not read.
    public var readsData: Bool
    /// Received bytes not yet given back, per stream, while `readsData` is off.
    var unconsumed: [Int32: Int] = [:]

    /// A client speaking on the connected socket `fd`, which it owns from now on.
    public init(fd: Int32, readsData: Bool = true) {
        self.fd = fd
        self.readsData = readsData
        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_option_new(&option)
        defer {
            nghttp2_session_callbacks_del(callbacks)
            nghttp2_option_del(option)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, clientHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, clientData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, clientStreamClosed)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, clientFrame)
        nghttp2_option_set_no_auto_window_update(option, 1)
        // Lets a test open more streams than the server allows before its SETTINGS arrive.
        nghttp2_option_set_peer_max_concurrent_streams(option, 1000)
        nghttp2_session_client_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        nghttp2_submit_settings(session, 0, nil, 0)
    }

    deinit {
        nghttp2_session_del(session)
        close(fd)
    }

    /// Submits a gRPC-style POST; `body` nil and `ended` true sends HEADERS with END_STREAM.
    @discardableResult
    public func request(
        path: String, body: [UInt8]? = nil, ended: Bool = true, headers: [(String, String)] = []
    ) -> Int32 {
        let fields: [(String, String)] =
            [
                (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
                ("content-type", "application/grpc"), ("te", "trailers"),
            ] + headers
        var bytes: [UInt8] = []
        var spans: [(Range<Int>, Range<Int>)] = []
        for (name, value) in fields {
            let nameStart = bytes.count
            bytes += name.utf8
            let valueStart = bytes.count
            bytes += value.utf8
            spans.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
        let id: Int32 = bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let nva = spans.map {
                nghttp2_nv(
                    name: base + $0.0.lowerBound, value: base + $0.1.lowerBound, namelen: $0.0.count,
                    valuelen: $0.1.count, flags: 0)
            }
            if body == nil && ended {
                return nghttp2_submit_request(session, nil, nva, nva.count, nil, nil)
            }
            var provider = nghttp2_data_provider()
            provider.read_callback = clientBodyRead
            return nghttp2_submit_request(session, nil, nva, nva.count, &provider, nil)
        }
        precondition(id > 0, "nghttp2_submit_request failed: \(id)")
        if body != nil || !ended { bodies[id] = Body(bytes: body ?? [], ended: ended) }
        responses[id] = Response()
        return id
    }

    /// Queues more body bytes for a stream opened with `ended: false`.
    public func sendBody(stream id: Int32, _ bytes: [UInt8], ended: Bool) {
        bodies[id]?.bytes += bytes
        bodies[id]?.ended = ended
        nghttp2_session_resume_data(session, id)
    }

    /// Sends RST_STREAM (8: CANCEL).
    public func reset(stream id: Int32, errorCode: UInt32 = 8) {
        nghttp2_submit_rst_stream(session, 0, id, errorCode)
    }

    /// Starts reading: gives back what was held and every later byte.
    public func startReading() {
        readsData = true
        for (id, count) in unconsumed { nghttp2_session_consume(session, id, count) }
        unconsumed = [:]
    }

    /// Sends what is queued and reads until `condition` holds (true) or `timeout` passes (false).
    @discardableResult
    public func pump(timeout: Duration = .seconds(60), until condition: (HTTP2Client) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            flushOut()
            if condition(self) { return true }
            if peerClosed || ContinuousClock.now >= deadline { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                peerClosed = true
                continue
            }
            let rv = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
            if rv < 0 { peerClosed = true }
        }
    }

    private func flushOut() {
        while true {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            guard length > 0, let chunk else { return }
            var sent = 0
            while sent < length {
                let n = send(fd, chunk + sent, length - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                sent += n
            }
        }
    }

    /// Closes the socket under the server (a lost connection).
    public func drop() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// The DATA a stream received since the last call, taken out of its response (a long stream stays small).
    public func takeData(stream id: Int32) -> [UInt8] {
        guard let data = responses[id]?.data, !data.isEmpty else { return [] }
        responses[id]?.data = []
        return data
    }

    /// How many bytes of a stream's request body nghttp2 has taken so far (the peer's window lets it go on).
    public func bodyBytesSent(stream id: Int32) -> Int { bodies[id]?.offset ?? 0 }

    /// Forgets a finished stream's response.
    @discardableResult
    public func remove(stream id: Int32) -> Response? {
        bodies[id] = nil
        return responses.removeValue(forKey: id)
    }

    fileprivate func received(stream id: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        responses[id, default: Response()].data += bytes
        if readsData {
            nghttp2_session_consume(session, id, bytes.count)
        } else {
            unconsumed[id, default: 0] += bytes.count
        }
    }

    fileprivate func readBody(
        stream id: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard var body = bodies[id] else { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
        defer { bodies[id] = body }
        let count = min(length, body.bytes.count - body.offset)
        body.bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + body.offset, count: count) }
        body.offset += count
        if body.offset == body.bytes.count {
            if body.ended {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            } else if count == 0 {
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
        }
        return count
    }
}

private func client(_ userData: UnsafeMutableRawPointer?) -> HTTP2Client {
    Unmanaged<HTTP2Client>.fromOpaque(userData!).takeUnretainedValue()
}

private func clientHeader(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, name: UnsafePointer<UInt8>?, nameLength: Int,
    value: UnsafePointer<UInt8>?, valueLength: Int, flags: UInt8, userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    let field = (
        name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
        value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    )
    let id = frame.pointee.hd.stream_id
    let me = client(userData)
    if frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS {
        me.responses[id, default: .init()].trailers.append(field)
    } else {
        me.responses[id, default: .init()].headers.append(field)
    }
    return 0
}

private func clientData(
    session: OpaquePointer?, flags: UInt8, streamID: Int32, data: UnsafePointer<UInt8>?, length: Int,
    userData: UnsafeMutableRawPointer?
) -> Int32 {
    client(userData).received(stream: streamID, UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func clientStreamClosed(
    session: OpaquePointer?, streamID: Int32, errorCode: UInt32, userData: UnsafeMutableRawPointer?
) -> Int32 {
    client(userData).responses[streamID, default: .init()].closeCode = errorCode
    return 0
}

private func clientFrame(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
    client(userData).goAways.append((frame.pointee.goaway.last_stream_id, frame.pointee.goaway.error_code))
    return 0
}

private func clientBodyRead(
    session: OpaquePointer?, streamID: Int32, buffer: UnsafeMutablePointer<UInt8>?, length: Int,
    flags: UnsafeMutablePointer<UInt32>?, source: UnsafeMutablePointer<nghttp2_data_source>?,
    userData: UnsafeMutableRawPointer?
) -> Int {
    client(userData).readBody(stream: streamID, into: buffer!, length: length, flags: flags!)
}

extension HTTP2Client {
    /// A TCP connection to 127.0.0.1:`port`, with TCP_NODELAY, for `init(fd:)`.
    public static func connectTCP(port: Int) throws -> Int32 {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        // Small frames (WINDOW_UPDATE) must not wait for Nagle's delay.
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
}
