import Dispatch
import HearthHTTP
import Testing

@Suite struct DeferredReplyTests {
    @Test func manyConcurrentDeferredRepliesAnsweredFromOtherThreads() throws {
        let server = try startServer { request in
            .deferred { respond in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 1...30))) {
                    respond(.text("answer for \(request.path)"))
                }
            }
        }
        defer { server.stop() }
        // All requests are on the wire before any response is read, so the server holds them suspended together.
        let clients = try (0..<64).map { index in
            let client = try RawClient(port: server.port)
            try client.send("GET /item/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            return client
        }
        for (index, client) in clients.enumerated() {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "answer for /item/\(index)")
            // A second request on the same connection after a resume.
            #expect(try client.request("GET", "/again/\(index)").text == "answer for /again/\(index)")
        }
    }

    @Test func respondBeforeTheClosureReturnsAndTwice() throws {
        let server = try startServer { request in
            .deferred { respond in
                if request.path == "/sync" {
                    respond(.text("first"))
                    respond(.text("second"))
                } else {
                    // Race the respond on another thread against the closure's own return.
                    let done = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async {
                        respond(.text("raced"))
                        done.signal()
                    }
                    done.wait()
                    respond(.text("late"))
                }
            }
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        for _ in 0..<50 {
            #expect(try client.request("GET", "/sync").text == "first")
            #expect(try client.request("GET", "/race").text == "raced")
        }
    }

    @Test func respondAfterTheClientLeftIsHarmless() throws {
        let parked = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { _ in
            .deferred { respond in parked.update { $0.append(respond) } }
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitUntil { parked.value.count == 1 })
        client.close()
        for respond in parked.value {
            respond(.text("nobody listening"))
            respond(.text("again"))
        }
        #expect(waitUntil { server.openConnections == 0 })
        // The server is still healthy.
        let other = try RawClient(port: server.port)
        try other.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitUntil { parked.value.count == 2 })
        parked.value[1](.text("fine"))
        #expect(try other.readResponse().text == "fine")
    }
}
