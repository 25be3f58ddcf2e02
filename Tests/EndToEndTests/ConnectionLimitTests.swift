import Foundation
import HearthTesting
import Testing

/// One client must not be able to take every connection slot, neither by opening many connections nor by holding
/// one with a request head that never ends (slowloris).
@Suite
struct ConnectionLimitTests {
    @Test func oneAddressCannotTakeEverySlot() async throws {
        raiseOpenFileLimit(to: 8192)
        var options = HearthProcess.Options()
        // A global limit one address could reach on its own, were there no per-address limit (default 256).
        options.extraArguments = ["--max-connections", "2000"]
        try await withHearth(options) { server in
            var held: [RawSocket] = []
            for _ in 0..<2000 {
                guard let socket = try? RawSocket(port: server.port, timeout: 10) else { break }
                held.append(socket)
            }
            // The server refuses the connections past the per-address limit once it accepts them.
            try await Task.sleep(for: .milliseconds(500))
            let refused = try RawSocket(port: server.port, timeout: 10)
            try refused.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let refusedReply = refused.readAll()
            #expect(refusedReply.status == 0 && refusedReply.closedByServer, "\(refusedReply.text)")

            let other = try RawSocket(port: server.port, source: "127.0.0.2", timeout: 10)
            try other.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let reply = other.readAll()
            #expect(reply.status == 200, "another address must still be served: \(reply.text)")
            withExtendedLifetime(held) {}
        }
    }

    @Test func trickledRequestHeadIsClosed() async throws {
        try await withHearth { server in
            let socket = try RawSocket(port: server.port, timeout: 5)
            try socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            let start = ContinuousClock.now
            var closed = false
            // One byte every two seconds: never idle long enough for an inactivity timeout, so only a deadline on
            // the whole head (30 s) ends it.
            while ContinuousClock.now - start < .seconds(60) {
                try await Task.sleep(for: .seconds(2))
                if (try? socket.send("a")) == nil {
                    closed = true
                    break
                }
                var byte: UInt8 = 0
                if recv(socket.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 {
                    closed = true
                    break
                }
            }
            #expect(closed, "a request head trickled for 60 s must be cut off")
            // The server logs the cut just after shutting the socket down, so the line may follow the closure the
            // client saw by a moment.
            let logged = ContinuousClock.now
            while !server.stderr.contains("request headers did not arrive"), ContinuousClock.now - logged < .seconds(10)
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(server.stderr.contains("request headers did not arrive"), "the cut must be logged")
        }
    }
}

/// Raises this process's soft open-file limit (the servers it starts inherit it), as far as the hard limit allows.
func raiseOpenFileLimit(to wanted: Int) {
    var limits = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur < rlim_t(wanted) else { return }
    limits.rlim_cur = min(rlim_t(wanted), limits.rlim_max)
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
}
