internal import CMicroHTTPD
import Foundation

extension ServerCore {
    func start() throws {
        try lifecycle.withLock { state in
            guard case .idle = state else {
                throw HTTPServerError(
                    code: .invalidState, message: "start() called on a server that was already started")
            }
            var daemon = try launchDaemon()
            if let http2 = configuration.http2Connections {
                do {
                    daemon.sharedPort = try startSharedPort(daemon: daemon, http2: http2)
                } catch {
                    MHD_stop_daemon(daemon.pointer)
                    daemon.retainedCore.release()
                    throw error
                }
            }
            state = .running(daemon)
            headerDeadlines.start()
            let port = daemon.sharedPort?.port ?? Int(hearth_mhd_bound_port(daemon.pointer))
            boundPort.store(port, ordering: .relaxed)
        }
    }

    /// Hearth's own listening socket, feeding `daemon` (started without one) and the HTTP/2 side.
    private func startSharedPort(
        daemon: DaemonHandle, http2: @escaping @Sendable (Int32) -> Void
    ) throws
        -> SharedPort
    {
        let limit = configuration.connectionLimit
        let port = try SharedPort(
            address: socketAddress(host: configuration.host, port: configuration.port),
            http1: { [self] fd, address, length in
                handedOff.add(1, ordering: .relaxed)
                // libmicrohttpd closes the socket itself when it refuses it (its per-address limit, say).
                if MHD_add_connection(daemon.pointer, fd, address, length) != .YES {
                    let reason = String(cString: strerror(errno))
                    handedOff.subtract(1, ordering: .relaxed)
                    configuration.diagnosticsHandler?("HTTP/1.1 connection refused by libmicrohttpd: \(reason)")
                }
            },
            http2: http2,
            // As libmicrohttpd does with its own socket: at the limit, new clients wait in the listen backlog.
            mayAccept: { [self] undecided in
                openConnections.load(ordering: .relaxed) + handedOff.load(ordering: .relaxed) + undecided < limit
            })
        do {
            try port.start()
        } catch {
            close(port.listenSocket)
            throw error
        }
        return port
    }

    private func launchDaemon() throws -> DaemonHandle {
        let config = configuration
        var address = try socketAddress(host: config.host, port: config.port)
        try validate(config)
        // With a shared port the address is bound by `SharedPort`, after the daemon starts without a socket.
        let listens = config.http2Connections == nil
        if let warning = DescriptorLimit.raise(toFit: config.connectionLimit) { config.diagnosticsHandler?(warning) }

        let retained = Unmanaged.passRetained(self)
        let cls = retained.toOpaque()
        let completed: MHD_RequestCompletedCallback = requestCompleted
        let notify: MHD_NotifyConnectionCallback = connectionNotified
        let logger: MHD_LogCallback = daemonLogged
        let uriLogged: URILogCallback = requestLineReceived

        startupLog.withLock { $0 = [] }
        let daemon = withUnsafeMutablePointer(to: &address) { addressPointer -> OpaquePointer? in
            var options: [MHD_OptionItem] = [
                // The logger goes first so that failures while parsing the remaining options are captured too.
                item(.EXTERNAL_LOGGER, value: unsafeBitCast(logger, to: Int.self), pointer: cls),
                item(.NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self), pointer: cls),
                item(.NOTIFY_CONNECTION, value: unsafeBitCast(notify, to: Int.self), pointer: cls),
                item(.CONNECTION_MEMORY_LIMIT, value: config.connectionMemoryLimit),
                item(.CONNECTION_TIMEOUT, value: config.connectionTimeout),
                item(.CONNECTION_LIMIT, value: config.connectionLimit),
                item(.PER_IP_CONNECTION_LIMIT, value: config.perAddressConnectionLimit),
                item(.URI_LOG_CALLBACK, value: unsafeBitCast(uriLogged, to: Int.self), pointer: cls),
            ]
            if listens {
                options.append(item(.SOCK_ADDR, pointer: UnsafeMutableRawPointer(addressPointer)))
            }
            if config.threads > 1 {
                options.append(item(.THREAD_POOL_SIZE, value: config.threads))
            }
            options.append(item(.END))
            return options.withUnsafeMutableBufferPointer { buffer in
                hearth_mhd_start(
                    listens ? daemonFlags : daemonFlags | MHD_USE_NO_LISTEN_SOCKET.rawValue, UInt16(config.port),
                    accessHandler, cls, buffer.baseAddress)
            }
        }
        let messages = startupLog.withLock { log in
            defer { log = nil }
            return log ?? []
        }
        guard let daemon else {
            retained.release()
            throw startFailure(host: config.host, port: config.port, messages: messages)
        }
        return DaemonHandle(pointer: daemon, retainedCore: retained)
    }

    private func validate(_ config: HTTPServer.Configuration) throws {
        func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            guard condition else { throw HTTPServerError(code: .invalidConfiguration, message: message()) }
        }
        try check(config.threads >= 1, "threads must be at least 1, not \(config.threads)")
        try check(config.maxBodyBytes >= 0, "maxBodyBytes must not be negative")
        try check(
            config.connectionMemoryLimit >= 4096, "connectionMemoryLimit must be at least 4096 bytes")
        try check(
            (0...Int(UInt32.max)).contains(config.connectionTimeout),
            "connectionTimeout must be between 0 and \(UInt32.max) seconds")
        try check(
            (1...Int(UInt32.max)).contains(config.connectionLimit), "connectionLimit must be at least 1")
        try check(
            (0...Int(UInt32.max)).contains(config.perAddressConnectionLimit),
            "perAddressConnectionLimit must not be negative")
        try check(config.headerTimeout >= 1, "headerTimeout must be at least 1 second")
        try check(
            (1...Int(UInt32.max)).contains(config.bodyTimeout), "bodyTimeout must be at least 1 second")
    }

    private func socketAddress(host: String, port: Int) throws -> sockaddr_in {
        guard (0...65535).contains(port) else {
            throw HTTPServerError(code: .invalidConfiguration, message: "port \(port) is outside 0...65535")
        }
        var address = sockaddr_in()
        #if !os(Linux)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw HTTPServerError(
                code: .invalidConfiguration, message: "host \"\(host)\" is not an IPv4 address literal")
        }
        return address
    }

    /// Turns a failed start into a specific error: libmicrohttpd reports only NULL, so the bind is retried here to
    /// learn its errno.
    private func startFailure(host: String, port: Int, messages: [String]) -> HTTPServerError {
        let detail = messages.isEmpty ? "" : " (" + messages.joined(separator: "; ") + ")"
        if port != 0, bindErrno(host: host, port: port) == EADDRINUSE {
            return HTTPServerError(
                code: .addressInUse, message: "address \(host):\(port) is already in use\(detail)")
        }
        return HTTPServerError(code: .startFailed, message: "could not listen on \(host):\(port)\(detail)")
    }

    private func bindErrno(host: String, port: Int) -> Int32 {
        guard var address = try? socketAddress(host: host, port: port) else { return 0 }
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0 ? 0 : errno
    }
}

/// Event loop per pool thread with suspend/resume. `MHD_USE_ERROR_LOG` only routes messages to the external logger
/// (which drops them unless asked), so nothing reaches stderr.
private var daemonFlags: UInt32 {
    #if os(Linux)
    let polling = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue
    #else
    let polling = MHD_USE_AUTO.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
    #endif
    return polling | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
}

private func item(_ option: MHD_OPTION, value: Int = 0, pointer: UnsafeMutableRawPointer? = nil) -> MHD_OptionItem {
    MHD_OptionItem(option: option, value: value, ptr_value: pointer)
}
