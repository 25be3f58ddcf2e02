internal import CMicroHTTPD
import Foundation
import Synchronization

/// The part of `HTTPServer` that libmicrohttpd's callbacks see (through their `cls` pointer): configuration,
/// counters, and the registries a graceful stop needs.
///
/// The running daemon holds a retain on it, so callbacks never see a freed object even if the public `HTTPServer`
/// is released first.
final class ServerCore: Sendable {
    let configuration: HTTPServer.Configuration
    let responder: any HTTPResponder

    let openConnections = Atomic<Int>(0)
    /// Requests between their first access-handler call and their completion, event streams excluded.
    let inFlight = Atomic<Int>(0)
    /// Set when a stop begins: responses then carry `Connection: close` so keep-alive clients move elsewhere.
    let draining = Atomic<Bool>(false)
    let boundPort = Atomic<Int>(0)
    /// Connections the shared port gave libmicrohttpd that it has not yet reported started: counted with
    /// `openConnections` against the limit, since libmicrohttpd takes them on its own thread a moment later.
    let handedOff = Atomic<Int>(0)

    let lifecycle = Mutex(Lifecycle.idle)
    let registry = Mutex(Registry())
    /// libmicrohttpd's messages captured while `start()` runs, to explain a failure.
    let startupLog = Mutex<[String]?>(nil)
    /// Connections still reading a request head, closed when they take too long.
    let headerDeadlines: HeaderDeadlines
    /// What all event streams may hold for their clients together.
    let streamBudget: StreamBufferBudget

    enum Lifecycle {
        case idle
        case running(DaemonHandle)
        case stopped
    }

    /// What must be woken or ended before libmicrohttpd may be stopped: it aborts the process if any connection is
    /// still suspended at that point.
    struct Registry: ~Copyable {
        var deferred: [ObjectIdentifier: DeferredReply] = [:]
        var streams: [ObjectIdentifier: HTTPEventStream] = [:]
        /// New streams are closed as soon as they attach.
        var streamsClosed = false
        /// New deferred replies are answered 503 at once instead of suspending.
        var deferredClosed = false
    }

    init(configuration: HTTPServer.Configuration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
        streamBudget = StreamBufferBudget(limit: configuration.maxStreamBufferBytes)
        headerDeadlines = HeaderDeadlines(seconds: configuration.headerTimeout) { line in
            configuration.diagnosticsHandler?(line)
        }
    }

    // MARK: - Deferred replies and streams

    /// Registers a deferred reply so a stop can answer it; `false` once the server is past its grace period.
    func register(_ reply: DeferredReply) -> Bool {
        registry.withLock { registry in
            guard !registry.deferredClosed else { return false }
            registry.deferred[ObjectIdentifier(reply)] = reply
            return true
        }
    }

    func unregister(_ reply: DeferredReply) {
        _ = registry.withLock { $0.deferred.removeValue(forKey: ObjectIdentifier(reply)) }
    }

    /// Registers a live stream so a stop can close it; closes it at once if the server is stopping.
    func register(_ stream: HTTPEventStream) {
        let id = ObjectIdentifier(stream)
        let accepted = registry.withLock { registry in
            guard !registry.streamsClosed else { return false }
            registry.streams[id] = stream
            return true
        }
        guard accepted else {
            stream.close()
            return
        }
        stream.onClose { [self] in
            _ = registry.withLock { $0.streams.removeValue(forKey: id) }
        }
    }

    // MARK: - Stop

    /// Only the first caller does the work; later or concurrent callers return at once. Waiting for the first would
    /// deadlock when the caller is an `onClose` handler, which runs on a daemon thread that the stop must join.
    func stop(gracePeriod: Duration) {
        let daemon = lifecycle.withLock { state -> DaemonHandle? in
            defer { state = .stopped }
            guard case .running(let daemon) = state else { return nil }
            return daemon
        }
        guard let daemon else { return }
        draining.store(true, ordering: .relaxed)
        // With a shared port Hearth owns the listening socket: closing it is the quiesce.
        let listenSocket: Int32
        if let port = daemon.sharedPort {
            port.stop()
            listenSocket = -1
        } else {
            listenSocket = MHD_quiesce_daemon(daemon.pointer)
        }

        let streams = registry.withLock { registry in
            registry.streamsClosed = true
            return Array(registry.streams.values)
        }
        for stream in streams { stream.close() }

        waitForInFlightRequests(until: ContinuousClock.now.advanced(by: max(gracePeriod, .zero)))

        let pending = registry.withLock { registry in
            registry.deferredClosed = true
            defer { registry.deferred = [:] }
            return Array(registry.deferred.values)
        }
        for reply in pending { reply.fulfill(ServerCore.unavailableResponse) }

        MHD_stop_daemon(daemon.pointer)
        headerDeadlines.stop()
        if listenSocket >= 0 { close(listenSocket) }
        daemon.retainedCore.release()
        boundPort.store(0, ordering: .relaxed)
    }

    private func waitForInFlightRequests(until deadline: ContinuousClock.Instant) {
        // Polling keeps the request path free of any wake-up bookkeeping; a stop happens once per process.
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    static let unavailableResponse = HTTPResponse(
        status: 503, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")],
        body: Array("server shutting down\n".utf8))
}

/// A running daemon and the retain it holds on its `ServerCore`.
///
/// `@unchecked Sendable`: the daemon pointer is only passed to MHD_quiesce_daemon and MHD_stop_daemon, once, by the
/// single caller that moved the lifecycle out of `.running`.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    let retainedCore: Unmanaged<ServerCore>
    /// The listening socket Hearth owns when HTTP/2 shares the port; `nil` when libmicrohttpd listens.
    var sharedPort: SharedPort? = nil
}
