internal import CNGHTTP2
import Foundation

/// One connection's thread: reads the socket into the nghttp2 server session, writes what the session produces,
/// and applies the commands handler tasks queue (through `HTTP2Connection`), woken by its pipe.
///
/// `@unchecked Sendable`: after `run()` starts, every property is touched only by the connection's thread (the
/// nghttp2 callbacks run inside `mem_recv`/`mem_send` on that thread).
final class HTTP2ConnectionLoop: @unchecked Sendable {
    /// A request head while its HEADERS (and CONTINUATION) frames arrive.
    struct PendingHead {
        var method: String?
        var path: String?
        var authority: String?
        var headers: [(name: String, value: String)] = []
        /// RFC 9113 §6.5.2's size: each field's name and value plus 32.
        var size = 0
        var tooLarge = false
    }

    let socket: Int32
    let connection: HTTP2Connection
    let configuration: HTTP2Server.Configuration
    let handler: HTTP2StreamHandler
    let onFinish: @Sendable () -> Void

    var session: OpaquePointer?
    var pendingHeads: [Int32: PendingHead] = [:]
    /// Streams handed to a handler and not yet closed by the session.
    var openStreams = 0
    /// Bytes written by the session and not yet by the socket.
    var output: [UInt8] = []
    var outputStart = 0
    /// Window to give back once the session call under way returns (callbacks must not re-enter the session).
    var connectionConsume = 0
    var streamConsume: [(Int32, Int)] = []
    /// Trailers to submit once the session call under way returns.
    var trailersDue: [(Int32, [(name: String, value: String)])] = []
    /// Streams to reset with NO_ERROR once the session call under way returns.
    var resetsDue: [Int32] = []
    /// 0: none; 1: the shutdown notice is out and a PING asks when the client has seen it; 2: the final GOAWAY.
    var goAwayStage = 0
    var closeNow = false
    var lastActivity = ContinuousClock.now

    /// The payload of the PING sent after the shutdown notice; its ACK means the client has seen the notice.
    static let shutdownPing: [UInt8] = Array("hearthgo".utf8)

    init(
        socket: Int32, connection: HTTP2Connection, configuration: HTTP2Server.Configuration,
        handler: @escaping HTTP2StreamHandler, onFinish: @escaping @Sendable () -> Void
    ) {
        self.socket = socket
        self.connection = connection
        self.configuration = configuration
        self.handler = handler
        self.onFinish = onFinish
    }

    func run() {
        defer { tearDown() }
        guard setUp() else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            applyCommands()
            if closeNow || !flush() { return }
            if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
                && output.count == outputStart
            {
                return
            }
            expireIfIdle()
            var fds = [
                pollfd(
                    fd: socket, events: Int16(POLLIN) | (output.count > outputStart ? Int16(POLLOUT) : 0), revents: 0
                ),
                pollfd(fd: connection.wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, 1000)
            if ready < 0 && errno != EINTR { return }
            if fds[1].revents != 0 { drainWakePipe() }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                guard receive(into: &buffer) else { return }
            }
        }
    }

    // MARK: - Set-up and tear-down

    private func setUp() -> Bool {
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var noDelay: Int32 = 1
        // Fails harmlessly on a Unix socket (tests): only TCP has Nagle's delay.
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))

        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, nghttp2_option_new(&option) == 0 else { return false }
        defer {
            nghttp2_session_callbacks_del(callbacks)
            nghttp2_option_del(option)
        }
        installCallbacks(callbacks)
        // The window opens only as handlers take their bodies (`nghttp2_session_consume`), so a client cannot make
        // the server buffer more than the windows it was given.
        nghttp2_option_set_no_auto_window_update(option, 1)
        let userData = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_server_new2(&session, callbacks, userData, option) == 0 else { return false }

        let settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(clamping: configuration.maxConcurrentStreams)),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: UInt32(clamping: configuration.streamReceiveWindow)),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: configuration.maxHeaderListSize)),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count) == 0,
            nghttp2_session_set_local_window_size(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(clamping: configuration.connectionReceiveWindow))
                == 0
        else { return false }
        return true
    }

    private func tearDown() {
        let cancellations = connection.shared.withLock { shared -> [Cancellation] in
            shared.closed = true
            var cancellations: [Cancellation] = []
            for (id, var state) in shared.streams {
                state.closed = true
                if !state.localEnded { cancellations.append(state.cancel()) }
                shared.streams[id] = state.handlerFinished ? nil : state
            }
            return cancellations
        }
        for cancellation in cancellations { cancellation.run() }
        if session != nil { nghttp2_session_del(session) }
        session = nil
        close(socket)
        close(connection.wakeRead)
        close(connection.wakeWrite)
        onFinish()
    }

    // MARK: - I/O

    /// Reads what the socket has and feeds it to the session; `false` when the connection is over.
    private func receive(into buffer: inout [UInt8]) -> Bool {
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
        if count == 0 { return false }
        lastActivity = .now
        let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
        afterSessionCall()
        if consumed < 0 {
            report("HTTP/2 connection closed: \(String(cString: nghttp2_strerror(Int32(consumed))))")
            return false
        }
        return true
    }

    /// Writes pending output, asking the session for more while the socket takes it; `false` on a dead socket.
    private func flush() -> Bool {
        // Bounded so that a session that wants to write but produces nothing can never spin the thread.
        for _ in 0..<64 {
            if output.count > outputStart {
                let written = output.withUnsafeBytes { bytes in
                    send(socket, bytes.baseAddress! + outputStart, output.count - outputStart, sendFlags)
                }
                if written < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
                outputStart += written
                if output.count > outputStart { return true }
                output.removeAll(keepingCapacity: true)
                outputStart = 0
            }
            // Gathered up to 64 KiB at a time: the session copies frames out one by one, the socket takes them
            // in bulk; nothing is asked of the session while the socket is full, so output stays bounded.
            while output.count < 64 * 1024 {
                var chunk: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &chunk)
                if length < 0 {
                    report("HTTP/2 connection closed: \(String(cString: nghttp2_strerror(Int32(length))))")
                    return false
                }
                guard length > 0, let chunk else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
            }
            // Trailers and window updates the callbacks asked for may make more to write.
            afterSessionCall()
            if output.isEmpty && nghttp2_session_want_write(session) == 0 { return true }
            if !output.isEmpty { lastActivity = .now }
        }
        return true
    }

    private func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ read(connection.wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }

    // MARK: - Commands and deferred session calls

    private func applyCommands() {
        let commands = connection.shared.withLock { shared in
            defer { shared.commands.removeAll(keepingCapacity: true) }
            return shared.commands
        }
        for command in commands {
            switch command {
            case .respond(let id, let headers, let body):
                var provider = nghttp2_data_provider()
                provider.read_callback = dataSourceRead
                _ = HeaderBlock.with(headers) { fields, count in
                    body
                        ? nghttp2_submit_response(session, id, fields, count, &provider)
                        : nghttp2_submit_response(session, id, fields, count, nil)
                }
            case .resume(let id):
                _ = nghttp2_session_resume_data(session, id)
            case .consume(let id, let count):
                _ = nghttp2_session_consume(session, id, count)
            case .reset(let id, let code):
                _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, code)
            case .goAway:
                beginGoAway()
            case .close:
                closeNow = true
            }
        }
        afterSessionCall()
    }

    /// Runs what callbacks asked for but could not do inside the session call.
    func afterSessionCall() {
        if connectionConsume > 0 {
            _ = nghttp2_session_consume_connection(session, connectionConsume)
            connectionConsume = 0
        }
        if !streamConsume.isEmpty {
            for (id, count) in streamConsume { _ = nghttp2_session_consume(session, id, count) }
            streamConsume.removeAll(keepingCapacity: true)
        }
        if !resetsDue.isEmpty {
            for id in resetsDue {
                _ = nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, UInt32(NGHTTP2_NO_ERROR.rawValue))
            }
            resetsDue.removeAll()
        }
        if !trailersDue.isEmpty {
            let due = trailersDue
            trailersDue.removeAll()
            for (id, trailers) in due {
                _ = HeaderBlock.with(trailers) { nghttp2_submit_trailer(session, id, $0, $1) }
            }
        }
    }

    /// Graceful shutdown in two steps (RFC 9113 §6.8): a GOAWAY naming no stream limit tells the client to open no
    /// more, and once a PING round trip shows it has seen that, a second GOAWAY names the last stream served, so a
    /// request already on the wire is not lost.
    func beginGoAway() {
        guard goAwayStage == 0 else { return }
        goAwayStage = 1
        _ = nghttp2_submit_shutdown_notice(session)
        _ = Self.shutdownPing.withUnsafeBufferPointer {
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress)
        }
    }

    func finishGoAway() {
        guard goAwayStage < 2 else { return }
        goAwayStage = 2
        _ = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
            UInt32(NGHTTP2_NO_ERROR.rawValue), nil, 0)
    }

    private func expireIfIdle() {
        guard openStreams == 0, goAwayStage < 2, ContinuousClock.now - lastActivity >= configuration.idleTimeout
        else { return }
        finishGoAway()
    }

    func report(_ line: String) { configuration.diagnosticsHandler?(line) }
}

#if os(Linux)
/// A peer gone away must fail the send, not raise SIGPIPE in the whole process.
private let sendFlags = Int32(MSG_NOSIGNAL)
#else
private let sendFlags: Int32 = 0
#endif
