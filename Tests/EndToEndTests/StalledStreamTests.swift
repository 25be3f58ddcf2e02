import Foundation
import HearthTesting
import Testing

/// A stream client that stops reading is cut off once its buffer fills (16 MiB for a tree stream): the server
/// must then end the connection and log it, not leave it open and silent until the idle timeout.
@Suite
struct StalledStreamTests {
    @Test func cutOffTreeStreamEndsAndIsLogged() async throws {
        try await withHearth { server in
            let socket = try RawSocket(port: server.port, timeout: 10, receiveBuffer: 4096)
            try socket.send("GET /stall.json HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
            try await Task.sleep(for: .milliseconds(300))
            // About 40 MiB of events for a client that reads none: more than the stream's buffer and both
            // sockets' kernel buffers hold.
            let value = "\"" + String(repeating: "x", count: 1 << 20) + "\""
            var cutOff = false
            for index in 0..<40 where !cutOff {
                let put = try await server.client.request("PUT", "/stall/\(index).json", json: value)
                #expect(put.status == 200)
                cutOff = server.stderr.contains("cut off a slow event-stream client")
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while !cutOff && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                cutOff = server.stderr.contains("cut off a slow event-stream client")
            }
            #expect(cutOff, "the cut-off must be logged")
            // Reading now, the client must reach the end of the connection rather than wait on an open one.
            let reply = socket.readAll()
            #expect(reply.closedByServer, "the cut-off stream must end; got \(reply.bytes.count) bytes and no end")
        }
    }
}
