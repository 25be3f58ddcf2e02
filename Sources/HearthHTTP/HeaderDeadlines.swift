internal import CMicroHTTPD  // <sys/socket.h>: shutdown, SHUT_RDWR
import Foundation
import Synchronization

/// Closes connections whose request head is not complete within a fixed time of its start.
///
/// libmicrohttpd's own timeout only counts inactivity, so a client sending one header byte every few seconds holds
/// its connection (and its memory) for ever: a slowloris. Here a connection is watched from the moment it is
/// accepted, and again from each new request line on a kept-alive connection, until the access handler sees the full
/// head; one that is still reading its head at the deadline has its socket shut down, which libmicrohttpd then sees
/// as the client going away and cleans up on its own thread.
final class HeaderDeadlines: Sendable {
    private struct Entry {
        var socket: Int32
        var deadline: ContinuousClock.Instant
    }

    private let timeout: Duration
    private let entries = Mutex<[UInt: Entry]>([:])
    private let stopped = Atomic<Bool>(false)
    private let report: @Sendable (String) -> Void

    init(seconds: Int, report: @escaping @Sendable (String) -> Void) {
        timeout = .seconds(seconds)
        self.report = report
    }

    /// Starts the watch thread; it checks twice a second, so a deadline is kept to within half a second.
    func start() {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: 0.5)
                expire(now: .now)
            }
        }
        thread.name = "hearth-header-deadlines"
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// A request head begins on `connection`: from now on it has the timeout to arrive. A head already watched
    /// keeps its deadline, so the first request's clock runs from the accept, not from its request line.
    func arm(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        let entry = Entry(socket: socket, deadline: .now + timeout)
        entries.withLock { entries in
            if entries[key(connection)] == nil { entries[key(connection)] = entry }
        }
    }

    /// The head is complete, or the connection is closing: stop watching it.
    ///
    /// Called on close before libmicrohttpd closes the socket, and under the same lock as `expire`, so a socket
    /// number is never shut down after it was closed and reused.
    func disarm(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: key(connection)) }
    }

    private func expire(now: ContinuousClock.Instant) {
        let expired = entries.withLock { entries -> Int in
            let late = entries.filter { $0.value.deadline <= now }
            for (key, entry) in late {
                shutdown(entry.socket, Int32(SHUT_RDWR))
                entries.removeValue(forKey: key)
            }
            return late.count
        }
        if expired > 0 {
            report("closed \(expired) connection(s) whose request headers did not arrive within \(timeout)")
        }
    }

    private func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
}
