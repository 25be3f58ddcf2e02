import Testing

@testable import HearthHTTP

@Suite struct BodyLimitTests {
    private func limitedServer(_ seen: Locked<[HTTPRequest]>) throws -> HTTPServer {
        try startServer(maxBodyBytes: 1024) { request in
            seen.update { $0.append(request) }
            if request.bodyTooLarge {
                return .response(.json(status: 413, bytes: Array("{\"error\":\"too large\"}".utf8)))
            }
            return .response(HTTPResponse(status: 200, body: Array("\(request.body.count)".utf8)))
        }
    }

    @Test func declaredOversizedBodyIsFlaggedAndDiscarded() throws {
        let seen = Locked<[HTTPRequest]>([])
        let server = try limitedServer(seen)
        defer { server.stop() }
        let client = try RawClient(port: server.port)

        let big = [UInt8](repeating: 0x78, count: 200_000)
        let rejected = try client.request("POST", "/upload", body: big)
        #expect(rejected.status == 413)
        #expect(rejected.text == "{\"error\":\"too large\"}")

        // The discarded body was consumed, so the connection is still usable.
        let accepted = try client.request("POST", "/upload", body: [UInt8](repeating: 0x79, count: 1024))
        #expect(accepted.status == 200)
        #expect(accepted.text == "1024")

        let requests = seen.value
        try #require(requests.count == 2)
        #expect(requests[0].bodyTooLarge)
        #expect(requests[0].body.isEmpty)
        #expect(!requests[1].bodyTooLarge)
    }

    @Test func chunkedOversizedBodyIsFlagged() throws {
        let seen = Locked<[HTTPRequest]>([])
        let server = try limitedServer(seen)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let chunk = String(repeating: "z", count: 512)
        var raw = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<8 { raw += "200\r\n\(chunk)\r\n" }
        raw += "0\r\n\r\n"
        try client.send(raw)
        #expect(try client.readResponse().status == 413)
        let request = try #require(seen.value.first)
        #expect(request.bodyTooLarge)
        #expect(request.body.isEmpty)
    }

    @Test func contextStopsBufferingAtTheLimit() {
        let context = RequestContext(bodyTooLarge: false, expectedBodyBytes: 0)
        let chunk = [UInt8](repeating: 1, count: 600)
        chunk.withUnsafeBytes { context.append($0, limit: 1000) }
        #expect(context.body.count == 600)
        chunk.withUnsafeBytes { context.append($0, limit: 1000) }
        #expect(context.bodyTooLarge)
        #expect(context.body.isEmpty)
        #expect(context.body.capacity < 600)
        chunk.withUnsafeBytes { context.append($0, limit: 1000) }
        #expect(context.body.isEmpty)
    }
}
