import Dispatch
import Foundation
import Testing

@testable import HearthHTTP

@Suite struct ShutdownTests {
    @Test func gracefulStopWaitsForAnInFlightDeferredRequest() throws {
        let parked = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { _ in
            .deferred { respond in parked.update { $0.append(respond) } }
        }
        let client = try RawClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitUntil { parked.value.count == 1 })

        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.stop(gracePeriod: .seconds(60))
            stopped.signal()
        }
        #expect(waitUntil { server.core.draining.load(ordering: .relaxed) })
        #expect(!stopped.wait(seconds: 0.2), "stop returned while a deferred request was still in flight")

        parked.value[0](.text("finished"))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "finished")
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(stopped.wait(seconds: 20))
        #expect(throws: (any Error).self) { try RawClient(port: server.port).request("GET", "/") }
    }

    @Test func stopAnswersDeferredRequestsStillPendingAfterTheGracePeriod() throws {
        let parked = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { _ in
            .deferred { respond in parked.update { $0.append(respond) } }
        }
        let clients = try (0..<5).map { _ in
            let client = try RawClient(port: server.port)
            try client.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\n")
            return client
        }
        #expect(waitUntil { parked.value.count == 5 })
        server.stop(gracePeriod: .milliseconds(50))
        for client in clients {
            // Either the 503 made it out before the connection closed, or the close came first; never a hang.
            if let response = try? client.readResponse() {
                #expect(response.status == 503)
            }
        }
        for respond in parked.value { respond(.text("too late")) }
        #expect(server.openConnections == 0)
    }

    @Test func stopEndsEventStreams() throws {
        let streams = Locked<[HTTPEventStream]>([])
        let server = try startServer { _ in
            let stream = HTTPEventStream()
            streams.update { $0.append(stream) }
            return .stream(stream)
        }
        let clients = try (0..<3).map { _ in
            let client = try RawClient(port: server.port)
            try client.send("GET /listen HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try client.readHead()
            return client
        }
        #expect(waitUntil { streams.value.count == 3 })
        let closedCount = Locked(0)
        for stream in streams.value {
            stream.send("data: bye\n\n")
            stream.onClose { closedCount.update { $0 += 1 } }
        }
        // A handler that reacts by stopping the server again must not deadlock the stop that ran it.
        streams.value[0].onClose { server.stop() }
        server.stop()
        #expect(closedCount.value == 3)
        for client in clients {
            #expect(client.waitForClose())
        }
        #expect(streams.value.allSatisfy { $0.isClosed })
    }

    @Test func stopIsIdempotentAndSafeConcurrently() throws {
        let server = try startServer { _ in text("ok") }
        #expect(try RawClient(port: server.port).request("GET", "/").status == 200)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in server.stop(gracePeriod: .seconds(1)) }
        server.stop()
        let neverStarted = HTTPServer(configuration: .init(), responder: HTTPClosureResponder { _ in text("") })
        neverStarted.stop()
    }

    @Test func nothingOutlivesAStoppedServer() throws {
        weak var core: ServerCore?
        let streams = Locked<[HTTPEventStream]>([])
        do {
            let server = try startServer { request in
                if request.path == "/stream" {
                    let stream = HTTPEventStream()
                    streams.update { $0.append(stream) }
                    return .stream(stream)
                }
                return .deferred { _ in }  // never answered: the stop must clean it up
            }
            core = server.core
            let listener = try RawClient(port: server.port)
            try listener.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try listener.readHead()
            let waiter = try RawClient(port: server.port)
            try waiter.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(waitUntil { server.openConnections == 2 })
            server.stop(gracePeriod: .milliseconds(10))
        }
        #expect(core == nil)
        #expect(streams.value.first?.isClosed == true)
    }
}
