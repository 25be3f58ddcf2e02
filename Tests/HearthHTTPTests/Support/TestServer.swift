import Dispatch
import Foundation
import HearthHTTP
import Synchronization

/// Starts a server on 127.0.0.1 with a free port, answering with `reply`.
func startServer(
    maxBodyBytes: Int = 10 * 1024 * 1024, trustedProxies: TrustedProxies = .none,
    _ reply: @escaping @Sendable (HTTPRequest) -> HTTPReply
) throws -> HTTPServer {
    var configuration = HTTPServer.Configuration()
    configuration.trustedProxies = trustedProxies
    configuration.port = 0
    configuration.threads = 2
    configuration.maxBodyBytes = maxBodyBytes
    // HEARTH_TEST_SHARED_PORT=1 runs these tests through the shared port's own accept loop, which `hearth serve`
    // uses, instead of libmicrohttpd's.
    if ProcessInfo.processInfo.environment["HEARTH_TEST_SHARED_PORT"] == "1" {
        configuration.http2Connections = { close($0) }
    }
    let server = HTTPServer(configuration: configuration, responder: HTTPClosureResponder(reply))
    try server.start()
    return server
}

/// Polls `condition` until it holds or `timeout` passes; the generous default keeps a loaded machine from failing
/// a correct server.
func waitUntil(timeout: Duration = .seconds(20), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        usleep(2_000)
    }
    return true
}

/// A value shared between server threads and the test.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    var value: Value {
        mutex.withLock { $0 }
    }

    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}

extension DispatchSemaphore {
    /// Waits up to `seconds`; `true` if signalled.
    func wait(seconds: Double) -> Bool {
        wait(timeout: .now() + seconds) == .success
    }
}

func text(_ string: String) -> HTTPReply {
    .response(.text(string))
}
