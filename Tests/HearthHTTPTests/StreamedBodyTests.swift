import Foundation
import Synchronization
import Testing

@testable import HearthHTTP

/// A sink that counts bytes and records how the body ended, as a storage upload would.
private final class CountingSink: HTTPBodySink {
    let maxBodyBytes: Int
    private let state = Mutex<(bytes: Int, largestChunk: Int, events: [String])>((0, 0, []))
    private let refuseAfter: Int?

    init(maxBodyBytes: Int, refuseAfter: Int? = nil) {
        self.maxBodyBytes = maxBodyBytes
        self.refuseAfter = refuseAfter
    }

    var bytes: Int { state.withLock { $0.bytes } }
    var largestChunk: Int { state.withLock { $0.largestChunk } }
    var events: [String] { state.withLock { $0.events } }

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            state.bytes += chunk.count
            state.largestChunk = max(state.largestChunk, chunk.count)
            if let refuseAfter, state.bytes > refuseAfter { return false }
            return true
        }
    }

    func complete(_ outcome: HTTPBodyOutcome, request: HTTPRequest) -> HTTPReply {
        state.withLock { $0.events.append("complete \(outcome)") }
        switch outcome {
        case .complete(let count):
            return .response(.text("got \(count) for \(request.path)"))
        case .tooLarge:
            return .response(.text(status: 413, "too large"))
        case .refused:
            return .response(.text(status: 507, "refused"))
        }
    }

    func abandon() {
        state.withLock { $0.events.append("abandon") }
    }
}

@Suite struct StreamedBodyTests {
    /// A server whose `/upload` bodies go to `sink` and whose other bodies are buffered under a 1 KiB limit.
    private func server(_ sink: CountingSink) throws -> HTTPServer {
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 2
        configuration.maxBodyBytes = 1024
        let responder = HTTPClosureResponder(
            plan: { request in
                switch request.path {
                case "/upload": .streamed(sink)
                case "/forbidden": .reject(.text(status: 403, "no"))
                default: .buffered
                }
            },
            { request in
                .response(.text(request.bodyTooLarge ? "buffered too large" : "buffered \(request.body.count)"))
            })
        let server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
        return server
    }

    @Test func bodyLargerThanTheBufferLimitStreamsInSmallChunks() throws {
        let sink = CountingSink(maxBodyBytes: 64 << 20)
        let server = try server(sink)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let body = [UInt8](repeating: 0x61, count: 8 << 20)
        let response = try client.request("POST", "/upload", body: body)
        #expect(response.status == 200)
        #expect(response.text == "got \(8 << 20) for /upload")
        #expect(sink.bytes == 8 << 20)
        // The sink saw connection-buffer-sized pieces, never the whole body at once.
        #expect(sink.largestChunk <= 64 * 1024)
        #expect(sink.events == ["complete complete(byteCount: \(8 << 20))"])

        // Other routes keep the buffered limit on the same connection.
        let buffered = try client.request("POST", "/other", body: [UInt8](repeating: 1, count: 2048))
        #expect(buffered.text == "buffered too large")
    }

    @Test func chunkedBodyStreams() throws {
        let sink = CountingSink(maxBodyBytes: 1 << 20)
        let server = try server(sink)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let chunk = String(repeating: "z", count: 4096)
        var raw = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<4 { raw += "1000\r\n\(chunk)\r\n" }
        raw += "0\r\n\r\n"
        try client.send(raw)
        let response = try client.readResponse()
        #expect(response.text == "got 16384 for /upload")
    }

    @Test func declaredLengthOverTheSinkLimitIsAnsweredBeforeTheBody() throws {
        let sink = CountingSink(maxBodyBytes: 1000)
        let server = try server(sink)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        // Only the head is sent: the answer must come without the body.
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(sink.bytes == 0)
        #expect(client.waitForClose())
    }

    @Test func chunkedBodyOverTheLimitIsDiscardedAndFlagged() throws {
        let sink = CountingSink(maxBodyBytes: 5000)
        let server = try server(sink)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let chunk = String(repeating: "z", count: 4096)
        var raw = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<4 { raw += "1000\r\n\(chunk)\r\n" }
        raw += "0\r\n\r\n"
        try client.send(raw)
        #expect(try client.readResponse().status == 413)
        #expect(sink.bytes <= 5000)
        #expect(sink.events == ["complete tooLarge"])
    }

    @Test func refusedChunkStopsDelivery() throws {
        let sink = CountingSink(maxBodyBytes: 1 << 30, refuseAfter: 100_000)
        let server = try server(sink)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = try client.request("POST", "/upload", body: [UInt8](repeating: 2, count: 1 << 20))
        #expect(response.status == 507)
        #expect(sink.bytes < 1 << 20)
        #expect(sink.events == ["complete refused"])
    }

    @Test func clientStoppingMidBodyAbandonsTheSink() throws {
        let sink = CountingSink(maxBodyBytes: 1 << 30)
        let server = try server(sink)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        try client.send([UInt8](repeating: 3, count: 30_000))
        #expect(waitUntil { sink.bytes == 30_000 })
        client.close()
        #expect(waitUntil { sink.events == ["abandon"] })
    }

    @Test func rejectAnswersFromTheHead() throws {
        let sink = CountingSink(maxBodyBytes: 1 << 30)
        let server = try server(sink)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("PUT /forbidden HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 403)
        #expect(response.text == "no")
    }

    @Test func bufferedRoutesOfAStreamingResponderStillSeeHeadersAndQuery() throws {
        let seen = Locked<[HTTPRequest]>([])
        let responder = HTTPClosureResponder(
            plan: { _ in .buffered },
            { request in
                seen.update { $0.append(request) }
                return .response(.text(String(decoding: request.body, as: UTF8.self)))
            })
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = try client.request(
            "POST", "/a%20b?x=1&x=2", headers: ["X-Thing: yes"], body: Array("hello".utf8))
        #expect(response.text == "hello")
        let request = try #require(seen.value.first)
        #expect(request.path == "/a b")
        #expect(request.queryValues("x") == ["1", "2"])
        #expect(request.headers["x-thing"] == "yes")
    }
}
