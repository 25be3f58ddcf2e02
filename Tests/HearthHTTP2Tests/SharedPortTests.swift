import Foundation
import HearthHTTP
import HearthHTTP2
import Testing

/// HTTP/1.1 and h2c on one port: `HTTPServer` with `http2Connections` set, feeding an `HTTP2Server`.
@Suite struct SharedPortTests {
    private func startServers(
        _ configure: (inout HTTPServer.Configuration) -> Void = { _ in }
    ) throws -> (HTTPServer, HTTP2Server) {
        let h2 = HTTP2Server { stream in
            try? await stream.sendTrailers([
                ("content-type", "application/grpc"), ("grpc-status", "12"), ("grpc-message", "h2 \(stream.head.path)"),
            ])
        }
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 2
        configuration.http2Connections = { h2.adopt(socket: $0) }
        // libmicrohttpd's reasons (a refused connection, say) end up in the test log if a test fails.
        configuration.diagnosticsHandler = { line in print("HTTPServer: \(line)") }
        configure(&configuration)
        let http = HTTPServer(
            configuration: configuration,
            responder: HTTPClosureResponder { request in
                .response(.text("h1 \(request.path)"))
            })
        try http.start()
        return (http, h2)
    }

    @Test func onePortAnswersHTTP1AndH2c() async throws {
        let (http, h2) = try startServers()
        defer { http.stop() }
        #expect(http.port > 0)

        let reply = try await exchange(port: http.port, "GET /rest HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(reply.hasPrefix("HTTP/1.1 200"))
        #expect(reply.hasSuffix("h1 /rest"))

        let client = HTTP2Client(fd: try HTTP2Client.connectTCP(port: http.port))
        let response = await blocking { () -> HTTP2Client.Response? in
            let id = client.request(path: "/google.firestore.v1.Firestore/GetDocument")
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]
        }
        #expect(response?.status == "200")
        #expect(response?.grpcStatus == "12")
        #expect(
            response?.headers.contains { $0 == ("grpc-message", "h2 /google.firestore.v1.Firestore/GetDocument") }
                == true)
        // Both at once: the HTTP/2 connection stays open while HTTP/1.1 requests keep coming.
        #expect(
            try await exchange(port: http.port, "GET /again HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .hasSuffix(
                    "h1 /again"))
        await h2.shutdown(servicing: client)
        #expect(h2.openConnections == 0)
    }

    @Test func aSlowReaderOverTheRealPortHoldsTheHandlerToItsBudget() async throws {
        let chunk = [UInt8](repeating: 0x62, count: 64 * 1024)
        let progress = Shared((accepted: 0, finished: false))
        var h2Configuration = HTTP2Server.Configuration()
        h2Configuration.streamSendBudget = 256 * 1024
        let h2 = HTTP2Server(configuration: h2Configuration) { stream in
            do {
                try await stream.sendHeaders([(":status", "200"), ("content-type", "application/grpc")])
                for index in 0..<128 {
                    try await stream.sendData(chunk)
                    progress.with { $0.accepted = index + 1 }
                }
                try await stream.sendTrailers([("grpc-status", "0")])
                progress.with { $0.finished = true }
            } catch {
                stream.reset(errorCode: 2)
            }
        }
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.http2Connections = { h2.adopt(socket: $0) }
        let http = HTTPServer(
            configuration: configuration, responder: HTTPClosureResponder { _ in .response(.text("")) })
        try http.start()
        defer { http.stop() }

        let client = HTTP2Client(fd: try HTTP2Client.connectTCP(port: http.port), readsData: false)
        let id = await blocking { () -> Int32 in
            let id = client.request(path: "/s/Export")
            client.pump { ($0.responses[id]?.data.count ?? 0) == 65_535 }
            // The kernel's socket buffers take nothing more: HTTP/2 flow control stops the server, not TCP.
            client.pump(timeout: .milliseconds(500)) { _ in false }
            return id
        }
        #expect(!progress.current.finished)
        #expect(progress.current.accepted <= 5)
        let response = await blocking { () -> HTTP2Client.Response? in
            client.startReading()
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]
        }
        #expect(response?.data.count == 128 * chunk.count)
        #expect(response?.grpcStatus == "0")
        #expect(progress.current.finished)
        await h2.shutdown(servicing: client)
    }

    @Test func aSilentConnectionIsTakenForHTTP1AfterTheDeadline() async throws {
        let (http, h2) = try startServers()
        defer { http.stop() }
        let port = http.port
        // One thread from connect to answer, so a busy task pool cannot stretch the silence past the header timeout.
        let reply = await blocking { () -> String in
            guard let fd = try? HTTP2Client.connectTCP(port: port) else { return "no connection" }
            defer { close(fd) }
            // Past the preface deadline (2 s): a pre-connected browser socket that speaks late must still be served.
            Thread.sleep(forTimeInterval: 2.5)
            guard (try? send(fd, "GET /late HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) != nil else {
                return "send failed"
            }
            return readAll(fd)
        }
        #expect(reply.hasSuffix("h1 /late"))
        #expect(h2.openConnections == 0)
    }

    @Test func theConnectionLimitHoldsNewClientsInTheBacklog() async throws {
        let (http, _) = try startServers { $0.connectionLimit = 2 }
        defer { http.stop() }
        let port = http.port
        // One thread throughout: every connection speaks as soon as it is open, whatever the task pool is doing.
        let outcome = await blocking { () -> (kept: [String], heldBack: Bool, third: String) in
            guard let first = try? HTTP2Client.connectTCP(port: port),
                let second = try? HTTP2Client.connectTCP(port: port)
            else {
                return ([], false, "no connection")
            }
            defer { close(second) }
            let kept = [first, second].map { fd in
                (try? send(fd, "GET /k HTTP/1.1\r\nHost: x\r\n\r\n")) == nil ? "" : readAll(fd, untilSuffix: "h1 /k")
            }
            guard let third = try? HTTP2Client.connectTCP(port: port) else {
                return (kept, false, "no third connection")
            }
            defer { close(third) }
            _ = try? send(third, "GET /third HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            // Not answered while two connections are open...
            let heldBack = !readable(third, milliseconds: 500)
            close(first)
            // ...and answered once one closes.
            return (kept, heldBack, readAll(third))
        }
        #expect(outcome.kept.count == 2 && outcome.kept.allSatisfy { $0.hasSuffix("h1 /k") })
        #expect(outcome.heldBack)
        #expect(outcome.third.hasSuffix("h1 /third"))
    }
}

// The socket helpers block, so tests call them through `blocking`: a test holding one of the few threads every
// task shares would starve the HTTP/2 handlers (tasks) of other tests running at the same time.

/// Sends `request` on a new connection and reads until the server closes it.
private func exchange(port: Int, _ request: String) async throws -> String {
    let fd = try HTTP2Client.connectTCP(port: port)
    defer { close(fd) }
    return try await exchange(fd: fd, request)
}

private func exchange(fd: Int32, _ request: String, untilSuffix suffix: String? = nil) async throws -> String {
    try send(fd, request)
    return await blocking { readAll(fd, untilSuffix: suffix) }
}

private func send(_ fd: Int32, _ text: String) throws {
    let bytes = Array(text.utf8)
    guard Foundation.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
        throw POSIXError(.EIO)
    }
}

/// Reads until end of stream (or until the text ends with `suffix`), for at most 60 s.
private func readAll(_ fd: Int32, untilSuffix suffix: String? = nil) -> String {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        guard readable(fd, milliseconds: 100) else { continue }
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        received += buffer[0..<count]
        if let suffix, String(decoding: received, as: UTF8.self).hasSuffix(suffix) { break }
    }
    return String(decoding: received, as: UTF8.self)
}

private func readable(_ fd: Int32, milliseconds: Int32) -> Bool {
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&poller, 1, milliseconds) > 0
}
