import Dispatch
import Foundation
import HearthHTTP
import Testing

@Suite struct EventStreamTests {
    /// Serves one event stream per request and hands each to the test.
    private func streamingServer(
        maxBufferedBytes: Int = 1 << 20, _ streams: Locked<[HTTPEventStream]>
    ) throws -> HTTPServer {
        try startServer { _ in
            let stream = HTTPEventStream(headers: [("X-Stream", "yes")], maxBufferedBytes: maxBufferedBytes)
            stream.send("event: hello\ndata: {}\n\n")
            streams.update { $0.append(stream) }
            return .stream(stream)
        }
    }

    @Test func eventsSentFromAnotherThreadArriveInOrder() throws {
        let streams = Locked<[HTTPEventStream]>([])
        let server = try streamingServer(streams)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("GET /listen HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Cache-Control") == "no-cache")
        #expect(head.header("X-Stream") == "yes")
        #expect(head.header("Transfer-Encoding") == "chunked")

        let stream = try #require(streams.value.first)
        let closed = DispatchSemaphore(value: 0)
        stream.onClose { closed.signal() }
        let count = 500
        DispatchQueue.global().async {
            for index in 0..<count {
                stream.send("data: \(index)\n\n")
                if index % 50 == 0 { usleep(1_000) }  // let the connection park between bursts
            }
            stream.close()
        }

        var received = ""
        while let chunk = try client.readChunk() {
            received += String(decoding: chunk, as: UTF8.self)
        }
        let expected = "event: hello\ndata: {}\n\n" + (0..<count).map { "data: \($0)\n\n" }.joined()
        #expect(received == expected)
        #expect(closed.wait(seconds: 20))
        #expect(stream.isClosed)
        #expect(!stream.send("data: late\n\n"))
    }

    @Test func slowConsumerIsCutOff() throws {
        let streams = Locked<[HTTPEventStream]>([])
        let server = try streamingServer(maxBufferedBytes: 64 * 1024, streams)
        defer { server.stop() }
        let client = try RawClient(port: server.port, receiveBuffer: 4096)
        try client.send("GET /listen HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitUntil { streams.value.count == 1 })
        let stream = try #require(streams.value.first)
        let closed = DispatchSemaphore(value: 0)
        stream.onClose { closed.signal() }

        // The client never reads: once the socket buffers are full, the backlog passes the limit.
        let event = Array(("data: " + String(repeating: "x", count: 4000) + "\n\n").utf8)
        var refused = false
        for _ in 0..<200_000 where !refused {
            refused = !stream.send(event)
        }
        #expect(refused)
        #expect(stream.isClosed)
        #expect(closed.wait(seconds: 20))
        client.close()
        #expect(waitUntil { server.openConnections == 0 })
    }

    @Test func streamsTogetherStayWithinTheServersBudget() throws {
        let streams = Locked<[HTTPEventStream]>([])
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 2
        configuration.maxStreamBufferBytes = 256 * 1024
        let server = HTTPServer(
            configuration: configuration,
            responder: HTTPClosureResponder { _ in
                let stream = HTTPEventStream(maxBufferedBytes: 8 << 20)
                streams.update { $0.append(stream) }
                return .stream(stream)
            })
        try server.start()
        defer { server.stop() }
        // Two clients that never read.
        let first = try RawClient(port: server.port, receiveBuffer: 4096)
        try first.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitUntil { streams.value.count == 1 })
        let second = try RawClient(port: server.port, receiveBuffer: 4096)
        try second.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitUntil { streams.value.count == 2 })
        let (a, b) = (streams.value[0], streams.value[1])
        let event = Array(("data: " + String(repeating: "x", count: 4000) + "\n\n").utf8)

        // The first fills most of the budget, far below its own 8 MiB limit ...
        // (The connection drains into the kernel's socket buffers until they are full, so send until the backlog
        // stays.)
        var settled = false
        for _ in 0..<1000 where !settled {
            while server.bufferedStreamBytes < 160 * 1024, a.send(event) {}
            usleep(20_000)
            settled = server.bufferedStreamBytes >= 160 * 1024
        }
        #expect(settled && !a.isClosed)
        // ... so the second is cut off once both together would pass 256 KiB, though it holds far less than its own.
        var refused = false
        for _ in 0..<200_000 where !refused { refused = !b.send(event) }
        #expect(refused && b.isClosed)
        #expect(!a.isClosed, "the stream within the budget is kept")
        #expect(server.bufferedStreamBytes <= 256 * 1024)
        // Ending the first gives its bytes back.
        first.close()
        second.close()
        #expect(waitUntil { a.send(":\n\n") == false })
        #expect(waitUntil { server.bufferedStreamBytes == 0 })
    }

    @Test func onCloseFiresWhenTheClientDisconnects() throws {
        let streams = Locked<[HTTPEventStream]>([])
        let server = try streamingServer(streams)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("GET /listen HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readHead()
        #expect(try client.readChunk() == Array("event: hello\ndata: {}\n\n".utf8))
        let stream = try #require(streams.value.first)
        let closed = Locked(false)
        stream.onClose { closed.update { $0 = true } }
        client.close()

        // A parked connection cannot see the disconnect; heartbeats make the next write fail.
        let noticed = waitUntil {
            stream.send(":\n\n")
            return closed.value
        }
        #expect(noticed)
        #expect(stream.isClosed)
        #expect(waitUntil { server.openConnections == 0 })
    }

    @Test func closeBeforeAttachAndLateHandlers() throws {
        let stream = HTTPEventStream()
        #expect(stream.send("data: 1\n\n"))
        let calls = Locked(0)
        stream.onClose { calls.update { $0 += 1 } }
        stream.close()
        stream.close()
        #expect(calls.value == 1)
        #expect(!stream.send("data: 2\n\n"))
        stream.onClose { calls.update { $0 += 1 } }
        #expect(calls.value == 2)

        // Returned to the server already closed: the client gets what was queued, then the end.
        let server = try startServer { _ in .stream(stream) }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = try client.request("GET", "/")
        #expect(response.text == "data: 1\n\n")
    }

    @Test func oneStreamCannotServeTwoRequests() throws {
        let shared = HTTPEventStream()
        let server = try startServer { _ in .stream(shared) }
        defer { server.stop() }
        let first = try RawClient(port: server.port)
        try first.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try first.readHead().status == 200)
        let second = try RawClient(port: server.port)
        #expect(try second.request("GET", "/").status == 500)
        shared.close()
        #expect(try first.readChunk() == nil)
    }
}
