import Foundation
import HearthHTTP2
import Synchronization

extension HTTP2Server {
    /// Shuts down while the client keeps reading (it must answer the GOAWAY's PING for the shutdown to be quick).
    func shutdown(servicing client: HTTP2Client) async {
        let pumping = Task { await blocking { client.pump { $0.peerClosed } } }
        await shutdown(grace: .seconds(10))
        _ = await pumping.value
    }
}

/// Waits until `condition` holds (true) or `timeout` passes (false).
func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Runs blocking work on a thread of its own, so the concurrency pool (which runs the server's handlers) stays free.
func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A connected pair: the server adopts one end, the client speaks on the other.
func socketPair() -> (server: Int32, client: Int32) {
    var fds: [Int32] = [-1, -1]
    #if os(Linux)
    let type = Int32(SOCK_STREAM.rawValue)
    #else
    let type = SOCK_STREAM
    #endif
    precondition(socketpair(AF_UNIX, type, 0, &fds) == 0)
    return (fds[0], fds[1])
}

/// A latch handlers wait on until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A value tests and handlers share.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func with<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}
