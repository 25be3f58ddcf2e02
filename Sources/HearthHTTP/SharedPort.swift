internal import CMicroHTTPD
import Foundation
import Synchronization

/// The listening socket when HTTP/1.1 and HTTP/2 share one port, as Google's emulator serves REST and gRPC on one.
///
/// libmicrohttpd cannot give a connection back once it has read from it (it answers `PRI * HTTP/2.0` as a bad
/// request), so Hearth accepts itself, peeks at each connection's first bytes (`MSG_PEEK`: they stay in the socket for
/// whichever server takes it) until `ConnectionPreface` decides, and hands the socket on: HTTP/1.1 to libmicrohttpd
/// (`MHD_add_connection`), the HTTP/2 preface to the HTTP/2 side. A connection that sends nothing within the deadline
/// goes to libmicrohttpd, whose own timeouts then apply; one that closes first is closed.
///
/// One thread runs it, waiting in a `ReadinessSet` (epoll) on the listening socket, a wake pipe and the connections
/// still undecided. `@unchecked Sendable`: apart from `stop()` (an atomic, a pipe, a semaphore) everything is touched
/// by that thread only.
final class SharedPort: @unchecked Sendable {
    /// Where an accepted connection's bytes say it belongs.
    typealias HTTP1HandOff = @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Void

    private struct Undecided {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var deadline = ContinuousClock.now
        /// Part of the preface arrived: the socket stays readable with those bytes, so it is re-peeked on a short
        /// tick instead of waited on (which would wake at once, again and again).
        var partial = false
    }

    /// How long a connection may stay silent before it is taken for HTTP/1.1. Clients of both protocols speak
    /// first, at once; only a pre-connected browser socket waits, and it speaks HTTP/1.1.
    static let prefaceDeadline: Duration = .seconds(2)
    /// Undecided connections held at once; past it, new ones wait in the listen backlog.
    static let maxUndecided = 1024
    /// Undecided connections from one address; past it, its new connections go to libmicrohttpd unread, whose
    /// per-address limit then applies at once, so one client's silent connections cannot fill the undecided set
    /// and hold everyone else in the backlog. (An h2c client opens one connection; a browser a handful.)
    static let maxUndecidedPerAddress = 16

    let listenSocket: Int32
    let port: Int
    private let http1: HTTP1HandOff
    private let http2: @Sendable (Int32) -> Void
    /// Whether another connection may be accepted now (the connection limit), given how many are undecided.
    private let mayAccept: @Sendable (Int) -> Bool
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// The accept thread's own: connections still undecided, and how many of them each IPv4 address holds.
    private var undecided: [Int32: Undecided] = [:]
    private var undecidedByAddress: [UInt32: Int] = [:]

    /// Binds and listens on `address` (its port 0 picks a free one), without serving yet.
    init(
        address: sockaddr_in, http1: @escaping HTTP1HandOff, http2: @escaping @Sendable (Int32) -> Void,
        mayAccept: @escaping @Sendable (Int) -> Bool
    ) throws {
        (listenSocket, port) = try Self.listen(on: address)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            close(listenSocket)
            throw HTTPServerError(code: .startFailed, message: "could not create a wake pipe: errno \(errno)")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        self.http1 = http1
        self.http2 = http2
        self.mayAccept = mayAccept
    }

    private static func listen(on address: sockaddr_in) throws -> (Int32, Int) {
        var address = address
        let host = String(cString: inet_ntoa(address.sin_addr))
        let requestedPort = Int(UInt16(bigEndian: address.sin_port))
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else {
            throw HTTPServerError(code: .startFailed, message: "could not create a socket: errno \(errno)")
        }
        var reuse: Int32 = 1
        // As libmicrohttpd does: a restart must not wait for the old connections' TIME_WAIT to pass.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Foundation.listen(fd, SOMAXCONN) == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE {
                throw HTTPServerError(
                    code: .addressInUse, message: "address \(host):\(requestedPort) is already in use")
            }
            throw HTTPServerError(
                code: .startFailed, message: "could not listen on \(host):\(requestedPort) (errno \(code))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// Starts accepting on a thread of its own.
    func start() throws {
        let readiness = try ReadinessSet()
        let thread = Thread { [self] in
            run(readiness)
            finished.signal()
        }
        thread.name = "hearth-http-accept"
        thread.start()
    }

    /// Stops accepting and closes the listening socket and every connection not yet handed on; returns once the
    /// thread is done. Call once, after `start()`.
    func stop() {
        stopping.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        finished.wait()
        close(wakeRead)
        close(wakeWrite)
    }

    // MARK: - The accept thread

    private func run(_ readiness: ReadinessSet) {
        var listening = false
        readiness.add(wakeRead)
        defer {
            for fd in undecided.keys { close(fd) }
            undecided = [:]
            close(listenSocket)
        }
        while !stopping.load(ordering: .acquiring) {
            let room = undecided.count < Self.maxUndecided && mayAccept(undecided.count)
            if room != listening {
                if room { readiness.add(listenSocket) } else { readiness.remove(listenSocket) }
                listening = room
            }
            let ready = readiness.wait(timeoutMilliseconds: timeout(room: room))
            for fd in ready {
                if fd == wakeRead {
                    drainWakePipe()
                } else if fd == listenSocket {
                    acceptBatch(readiness)
                } else if undecided[fd] != nil {
                    decide(fd, readiness)
                }
            }
            let now = ContinuousClock.now
            for (fd, connection) in undecided {
                if connection.deadline <= now {
                    // Silent too long: HTTP/1.1's own header timeout takes it from here.
                    readiness.remove(fd)
                    forget(fd)
                    handToHTTP1(fd, connection)
                } else if connection.partial {
                    decide(fd, readiness)
                }
            }
        }
    }

    private func timeout(room: Bool) -> Int32 {
        // Throttled by the connection limit: look again soon, as connections close without telling this thread.
        if !room { return 20 }
        if undecided.values.contains(where: \.partial) { return 10 }
        guard let earliest = undecided.values.map(\.deadline).min() else { return -1 }
        let left = earliest - .now
        return Int32(
            clamping: max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
    }

    private func acceptBatch(_ readiness: ReadinessSet) {
        // A batch per wake-up, so a burst of connects costs one wait; the rest are taken on the next round.
        for _ in 0..<64 {
            guard undecided.count < Self.maxUndecided, mayAccept(undecided.count) else { return }
            var connection = Undecided()
            let fd = withUnsafeMutablePointer(to: &connection.address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    acceptSocket(listenSocket, $0, &connection.length)
                }
            }
            guard fd >= 0 else { return }
            let address = addressKey(connection)
            guard undecidedByAddress[address, default: 0] < Self.maxUndecidedPerAddress else {
                handToHTTP1(fd, connection)
                continue
            }
            connection.deadline = .now + Self.prefaceDeadline
            undecided[fd] = connection
            undecidedByAddress[address, default: 0] += 1
            // The first bytes are often in already: decided here, the connection never enters the set.
            decide(fd, readiness, watched: false)
            if let entry = undecided[fd], !entry.partial { readiness.add(fd) }
        }
    }

    private func decide(_ fd: Int32, _ readiness: ReadinessSet, watched: Bool = true) {
        guard var connection = undecided[fd] else { return }
        var bytes = [UInt8](repeating: 0, count: ConnectionPreface.bytes.count)
        let count = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT)) }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        let verdict: ConnectionPreface.Verdict? = count > 0 ? ConnectionPreface.classify(bytes[0..<count]) : nil
        if verdict == .needMoreBytes {
            if !connection.partial && watched { readiness.remove(fd) }
            connection.partial = true
            undecided[fd] = connection
            return
        }
        if watched && !connection.partial { readiness.remove(fd) }
        forget(fd)
        switch verdict {
        case .http2: http2(fd)
        case .http1: handToHTTP1(fd, connection)
        // Closed (or failed) before a byte: nobody to answer.
        case .needMoreBytes, nil: close(fd)
        }
    }

    /// Drops `fd` from the undecided connections and its address's count.
    private func forget(_ fd: Int32) {
        guard let connection = undecided.removeValue(forKey: fd) else { return }
        let address = addressKey(connection)
        let left = undecidedByAddress[address, default: 1] - 1
        undecidedByAddress[address] = left > 0 ? left : nil
    }

    /// The client's IPv4 address (the port listens on IPv4 only).
    private func addressKey(_ connection: Undecided) -> UInt32 {
        withUnsafeBytes(of: connection.address) { raw in
            raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_addr.s_addr
        }
    }

    private func handToHTTP1(_ fd: Int32, _ connection: Undecided) {
        var address = connection.address
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { http1(fd, $0, connection.length) }
        }
    }

    private func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }
}

/// accept(2) with close-on-exec, so children Hearth spawns never inherit client sockets.
private func acceptSocket(
    _ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t
)
    -> Int32
{
    #if os(Linux)
    return hearth_accept_cloexec(listener, address, &length)
    #else
    let fd = accept(listener, address, &length)
    if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return fd
    #endif
}
