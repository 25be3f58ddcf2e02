internal import CMicroHTTPD
import Foundation

/// The descriptors the port's front waits on for readability: epoll on Linux, so that a burst of connections whose
/// first bytes are late costs nothing per wake-up; `poll` elsewhere (development machines).
///
/// `@unchecked Sendable`: created by `SharedPort.start()` and handed to its thread, the only one that uses it.
final class ReadinessSet: @unchecked Sendable {
    #if os(Linux)
    private let epoll: Int32
    #else
    private var watched: Set<Int32> = []
    #endif

    init() throws {
        #if os(Linux)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            throw HTTPServerError(code: .startFailed, message: "could not create an epoll set: errno \(errno)")
        }
        #endif
    }

    deinit {
        #if os(Linux)
        close(epoll)
        #endif
    }

    func add(_ fd: Int32) {
        #if os(Linux)
        _ = hearth_epoll_add(epoll, fd)
        #else
        watched.insert(fd)
        #endif
    }

    /// Stops watching `fd`; call before closing it or handing it on.
    func remove(_ fd: Int32) {
        #if os(Linux)
        _ = hearth_epoll_remove(epoll, fd)
        #else
        watched.remove(fd)
        #endif
    }

    /// The descriptors readable (or hung up) within `timeoutMilliseconds` (-1: no limit).
    func wait(timeoutMilliseconds: Int32) -> [Int32] {
        #if os(Linux)
        var ready = [Int32](repeating: -1, count: 64)
        let count = ready.withUnsafeMutableBufferPointer {
            hearth_epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeoutMilliseconds)
        }
        return count > 0 ? Array(ready[0..<Int(count)]) : []
        #else
        var fds = watched.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), timeoutMilliseconds) > 0 else { return [] }
        return fds.filter { $0.revents != 0 }.map(\.fd)
        #endif
    }
}
