import Foundation
import Synchronization

/// An HTTP/2 server with prior knowledge (h2c, what gRPC speaks without TLS) on libnghttp2.
///
/// It does not listen: whoever owns the port accepts, sees the HTTP/2 preface (`ConnectionPreface`) and hands the
/// socket over with `adopt(socket:)`. Each connection runs on a thread of its own; each request stream runs the
/// handler in a task of its own.
///
/// Memory is bounded per connection: the client may send only as far as its flow-control windows, which reopen
/// only as handlers take the bytes; a handler's unsent response bytes stop it (`sendData` suspends) past
/// `streamSendBudget`.
public final class HTTP2Server: Sendable {
    /// Limits and windows. The defaults suit gRPC with Firestore's 10 MiB messages.
    public struct Configuration: Sendable {
        /// Streams a client may have open at once on one connection (SETTINGS_MAX_CONCURRENT_STREAMS); more are
        /// refused with REFUSED_STREAM, which clients retry.
        public var maxConcurrentStreams: Int = 100
        /// The largest request head, counted as RFC 9113 does (name + value + 32 per field); a larger one is
        /// answered 431 without reaching the handler.
        public var maxHeaderListSize: Int = 16 * 1024
        /// Response bytes one stream may have queued and unsent before `sendData` waits.
        public var streamSendBudget: Int = 1024 * 1024
        /// Request bytes a client may send on one stream ahead of its handler (SETTINGS_INITIAL_WINDOW_SIZE).
        public var streamReceiveWindow: Int = 1024 * 1024
        /// Request bytes a client may send on one connection ahead of its handlers, all streams together.
        public var connectionReceiveWindow: Int = 8 * 1024 * 1024
        /// Connections served at once; each holds a thread, so past this one a new connection is sent GOAWAY (naming
        /// no stream, so the client may retry elsewhere or later) and closed.
        public var maxConnections: Int = 1024
        /// How long a connection with no open stream may stay silent before it is sent GOAWAY and closed.
        public var idleTimeout: Duration = .seconds(300)
        /// Receives a line for each connection closed by an error (a protocol violation, say). `nil` drops them.
        public var diagnosticsHandler: (@Sendable (String) -> Void)? = nil

        /// The defaults.
        public init() {}
    }

    private struct Registry: ~Copyable {
        var connections: [ObjectIdentifier: HTTP2Connection] = [:]
        var draining = false
    }

    private let configuration: Configuration
    private let handler: HTTP2StreamHandler
    private let registry = Mutex(Registry())

    /// A server that will run `handler` for every request stream of every adopted connection.
    public init(configuration: Configuration = Configuration(), handler: @escaping HTTP2StreamHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    /// Takes ownership of an accepted socket whose first bytes (still unread) are the HTTP/2 preface, and serves it
    /// on a thread of its own. After `shutdown` began, the socket is closed at once.
    public func adopt(socket fd: Int32) {
        let connection: HTTP2Connection
        do {
            connection = try HTTP2Connection(
                sendBudget: configuration.streamSendBudget, remoteAddress: Self.peerAddress(of: fd))
        } catch {
            configuration.diagnosticsHandler?("HTTP/2 connection refused: \(error)")
            close(fd)
            return
        }
        let key = ObjectIdentifier(connection)
        let limit = configuration.maxConnections
        let accepted = registry.withLock { registry -> Bool? in
            guard !registry.draining else { return nil }
            guard registry.connections.count < limit else { return false }
            registry.connections[key] = connection
            return true
        }
        guard accepted == true else {
            close(connection.wakeRead)
            close(connection.wakeWrite)
            if accepted == false {
                configuration.diagnosticsHandler?("HTTP/2 connection refused: \(limit) connections open")
                refuse(fd)
            }
            close(fd)
            return
        }
        let loop = HTTP2ConnectionLoop(
            socket: fd, connection: connection, configuration: configuration, handler: handler,
            onFinish: { [weak self] in self?.registry.withLock { _ = $0.connections.removeValue(forKey: key) } })
        let thread = Thread { loop.run() }
        thread.name = "hearth-h2-connection"
        thread.start()
    }

    /// Tells a client over the limit to go away: the server preface (an empty SETTINGS frame) and a GOAWAY naming
    /// stream 0, so it knows no request was taken. Best effort; the socket is closed either way.
    private func refuse(_ fd: Int32) {
        let frames: [UInt8] = [
            0, 0, 0, 4, 0, 0, 0, 0, 0,  // SETTINGS, empty
            0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // GOAWAY: last stream 0, NO_ERROR
        ]
        #if os(Linux)
        _ = send(fd, frames, frames.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        #else
        _ = send(fd, frames, frames.count, 0)
        #endif
    }

    /// Connections open now.
    public var openConnections: Int { registry.withLock { $0.connections.count } }

    /// Sends GOAWAY on every connection, lets the streams already open finish for up to `grace`, then closes
    /// whatever is left (its streams see `cancelled`). Connections adopted from now on are closed at once.
    public func shutdown(grace: Duration) async {
        let deadline = beginShutdown(grace: grace)
        // Polled: a shutdown happens once per process, and this keeps the connection threads free of bookkeeping.
        while openConnections > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let closing = closeRemaining()
        while openConnections > 0 && ContinuousClock.now < closing {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// `shutdown(grace:)` for synchronous stop paths: blocks the calling thread, so it must not be called from a
    /// task (it would hold one of the few threads Swift concurrency runs every task on, handlers included).
    public func shutdownBlocking(grace: Duration) {
        let deadline = beginShutdown(grace: grace)
        while openConnections > 0 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let closing = closeRemaining()
        while openConnections > 0 && ContinuousClock.now < closing { Thread.sleep(forTimeInterval: 0.005) }
    }

    /// Refuses new connections and sends GOAWAY on the open ones; returns when the grace ends.
    private func beginShutdown(grace: Duration) -> ContinuousClock.Instant {
        let connections = registry.withLock { registry in
            registry.draining = true
            return Array(registry.connections.values)
        }
        for connection in connections { connection.enqueue(.goAway) }
        return ContinuousClock.now + max(grace, .zero)
    }

    /// Closes every connection still open; returns how long to wait for their threads.
    private func closeRemaining() -> ContinuousClock.Instant {
        let left = registry.withLock { Array($0.connections.values) }
        for connection in left { connection.enqueue(.close) }
        return ContinuousClock.now + .seconds(5)
    }

    /// The IPv4 or IPv6 address of `fd`'s peer as text, or `unknown`.
    static func peerAddress(of fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard found == 0 else { return "unknown" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(storage.ss_family)
        var copy = storage
        let written: Bool = withUnsafePointer(to: &copy) { pointer in
            switch family {
            case AF_INET:
                var raw = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                return inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil
            case AF_INET6:
                var raw = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                return inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil
            default: return false
            }
        }
        guard written else { return "unknown" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
