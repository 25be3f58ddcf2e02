import CNGHTTP2
import Foundation
import HearthHTTP2
import Testing

/// The HTTP/2 server over a socket pair, driven by nghttp2's own client session.
@Suite struct HTTP2ServerTests {
    /// A server on one end of a socket pair and a client on the other.
    private func connect(
        _ configure: (inout HTTP2Server.Configuration) -> Void = { _ in }, readsData: Bool = true,
        handler: @escaping HTTP2StreamHandler
    ) -> (HTTP2Server, HTTP2Client) {
        var configuration = HTTP2Server.Configuration()
        configure(&configuration)
        let server = HTTP2Server(configuration: configuration, handler: handler)
        let (serverEnd, clientEnd) = socketPair()
        server.adopt(socket: serverEnd)
        return (server, HTTP2Client(fd: clientEnd, readsData: readsData))
    }

    @Test func echoesARequestBodyAndEndsWithTrailers() async throws {
        let heads = Shared<[HTTP2RequestHead]>([])
        let (server, client) = connect { stream in
            heads.with { $0.append(stream.head) }
            do {
                try await stream.sendHeaders([(":status", "200"), ("content-type", "application/grpc")])
                for try await chunk in stream.requestBody { try await stream.sendData(chunk) }
                try await stream.sendTrailers([("grpc-status", "0"), ("grpc-message", "fine")])
            } catch {
                stream.reset(errorCode: 2)
            }
        }
        // Three times the client's 64 KiB window: the echo only completes if both directions' windows reopen.
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let result = await blocking {
            let id = client.request(
                path: "/google.firestore.v1.Firestore/GetDocument", body: body, headers: [("X-Goog-Test", "yes")])
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]
        }
        let response = try #require(result)
        #expect(response.closeCode == 0)
        #expect(response.status == "200")
        // Compared as one Bool: on a mismatch the testing library would diff 200,000 elements on a shared thread.
        let echoed = response.data == body
        #expect(echoed)
        #expect(response.data.count == body.count)
        #expect(response.trailer("grpc-status") == "0")
        #expect(response.trailer("grpc-message") == "fine")
        let head = try #require(heads.current.first)
        #expect(head.method == "POST")
        #expect(head.path == "/google.firestore.v1.Firestore/GetDocument")
        #expect(head.authority == "localhost")
        #expect(head.value(of: "x-goog-test") == "yes")
        #expect(head.value(of: "content-type") == "application/grpc")
        #expect(!head.headers.contains { $0.name.hasPrefix(":") })
        await server.shutdown(servicing: client)
    }

    @Test func trailersWithoutAHeadEndTheStreamInOneHeadersFrame() async throws {
        let (server, client) = connect { stream in
            try? await stream.sendTrailers([("content-type", "application/grpc"), ("grpc-status", "12")])
        }
        let result = await blocking {
            let id = client.request(path: "/x/Y")
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]
        }
        let response = try #require(result)
        #expect(response.closeCode == 0)
        #expect(response.status == "200")
        #expect(response.headers.contains { $0 == ("grpc-status", "12") })
        #expect(response.data.isEmpty)
        await server.shutdown(servicing: client)
    }

    @Test func streamsBeyondTheConcurrencyLimitAreRefusedAndServedWhenRetried() async throws {
        let counts = Shared((active: 0, peak: 0, started: 0))
        let gate = Gate()
        let (server, client) = connect { stream in
            counts.with {
                $0.active += 1
                $0.started += 1
                $0.peak = max($0.peak, $0.active)
            }
            await gate.wait()
            counts.with { $0.active -= 1 }
            try? await stream.sendTrailers([("grpc-status", "0")])
        }
        // All 200 HEADERS leave before the server's SETTINGS are read, as a client that ignores the limit would.
        let refused = await blocking { () -> [Int32] in
            let ids = (0..<200).map { _ in client.request(path: "/s/Hold") }
            client.pump { client in
                ids.count { client.responses[$0]?.closeCode == UInt32(NGHTTP2_REFUSED_STREAM.rawValue) } == 100
                    && counts.current.started == 100
            }
            return ids.filter { client.responses[$0]?.closeCode == UInt32(NGHTTP2_REFUSED_STREAM.rawValue) }
        }
        #expect(refused.count == 100)
        #expect(counts.current.peak == 100)
        gate.open()
        // Retried now that the client knows the limit: it queues them itself, and every one is served.
        let outcome = await blocking { () -> (served: Int, retried: Int) in
            let retried = refused.map { _ in client.request(path: "/s/Hold") }
            client.pump { client in
                client.responses.values.count { $0.closeCode == 0 && $0.grpcStatus == "0" } == 200
            }
            let served = client.responses.values.count { $0.closeCode == 0 && $0.grpcStatus == "0" }
            return (served, retried.count { client.responses[$0]?.closeCode == 0 })
        }
        #expect(outcome.served == 200)
        #expect(outcome.retried == 100)
        #expect(counts.current.peak == 100)
        #expect(counts.current.started == 200)
        await server.shutdown(servicing: client)
    }

    @Test func aReaderThatDoesNotReadHoldsTheHandlerToItsBudget() async throws {
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        let progress = Shared((attempted: 0, accepted: 0, finished: false))
        let (server, client) = connect(
            { $0.streamSendBudget = 256 * 1024 }, readsData: false,
            handler: { stream in
                do {
                    try await stream.sendHeaders([(":status", "200")])
                    for index in 0..<64 {
                        progress.with { $0.attempted = index + 1 }
                        try await stream.sendData(chunk)
                        progress.with { $0.accepted = index + 1 }
                    }
                    try await stream.sendTrailers([("grpc-status", "0")])
                    progress.with { $0.finished = true }
                } catch {
                    stream.reset(errorCode: 2)
                }
            })
        let id = await blocking { () -> Int32 in
            let id = client.request(path: "/s/Big")
            // The client's 64 KiB window is all the server may send; then the handler must stop once 256 KiB wait.
            client.pump { client in
                (client.responses[id]?.data.count ?? 0) == 65_535
                    && progress.current.attempted > progress.current.accepted
            }
            // Nothing may move while the client does not read: keep the socket serviced for a while to see that.
            client.pump(timeout: .milliseconds(500)) { _ in false }
            return id
        }
        let stalled = progress.current
        #expect(!stalled.finished)
        // 256 KiB budget + the 64 KiB already sent, in 64 KiB chunks: the fifth call waits.
        #expect(stalled.accepted <= 5)
        #expect(await blocking { client.responses[id]?.data.count } == 65_535)

        let response = await blocking { () -> HTTP2Client.Response? in
            client.startReading()
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]
        }
        #expect(response?.data.count == 64 * chunk.count)
        #expect(response?.trailer("grpc-status") == "0")
        #expect(progress.current.finished)
        await server.shutdown(servicing: client)
    }

    @Test func aHandlerThatDoesNotReadStopsTheClientAtItsWindow() async throws {
        let gate = Gate()
        let received = Shared<[UInt8]>([])
        let (server, client) = connect { stream in
            await gate.wait()
            do {
                for try await chunk in stream.requestBody { received.with { $0 += chunk } }
                try await stream.sendTrailers([("grpc-status", "0")])
            } catch {
                stream.reset(errorCode: 2)
            }
        }
        let body = (0..<(4 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let sentWhileHeld = await blocking { () -> Int in
            let id = client.request(path: "/s/Upload", body: body)
            // The stream's window (1 MiB) is all the client may send before the handler takes anything.
            client.pump { $0.bodyBytesSent(stream: id) >= 1024 * 1024 }
            client.pump(timeout: .milliseconds(500)) { _ in false }
            return client.bodyBytesSent(stream: id)
        }
        #expect(sentWhileHeld == 1024 * 1024)
        gate.open()
        let response = await blocking { () -> HTTP2Client.Response? in
            client.pump { $0.responses.values.first?.closeCode != nil }
            return client.responses.values.first
        }
        #expect(response?.grpcStatus == "0")
        // Compared as one Bool: on a mismatch the testing library would diff 4 Mi elements on a shared thread.
        let intact = received.current == body
        #expect(intact)
        #expect(received.current.count == body.count)
        await server.shutdown(servicing: client)
    }

    @Test func aResponseThatEndsBeforeTheRequestTellsTheClientToStopSending() async throws {
        let cancelled = Shared(false)
        let (server, client) = connect { stream in
            stream.onCancel { cancelled.with { $0 = true } }
            try? await stream.sendTrailers([("grpc-status", "12")])
        }
        let response = await blocking { () -> HTTP2Client.Response? in
            let id = client.request(path: "/s/Unknown", ended: false)
            client.sendBody(stream: id, [0, 0, 0, 0, 1, 7], ended: false)
            // RST_STREAM NO_ERROR after the response (RFC 9113 §8.1): the client stops, the stream closes cleanly.
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]
        }
        #expect(response?.closeCode == 0)
        #expect(response?.grpcStatus == "12")
        #expect(!cancelled.current)
        await server.shutdown(servicing: client)
    }

    @Test func aResetFromTheClientCancelsTheHandler() async throws {
        let events = Shared((started: false, onCancel: false, bodyFailed: false, isCancelled: false, done: false))
        let (server, client) = connect { stream in
            stream.onCancel { events.with { $0.onCancel = true } }
            try? await stream.sendHeaders([(":status", "200")])
            events.with { $0.started = true }
            do {
                for try await _ in stream.requestBody {}
            } catch HTTP2StreamError.cancelled {
                events.with { $0.bodyFailed = true }
            } catch {}
            events.with {
                $0.isCancelled = stream.isCancelled
                $0.done = true
            }
        }
        await blocking {
            let id = client.request(path: "/s/Stream", ended: false)
            client.sendBody(stream: id, [1, 2, 3], ended: false)
            client.pump { $0.responses[id]?.status == "200" && events.current.started }
            client.reset(stream: id)
            client.pump { _ in events.current.done }
        }
        let seen = events.current
        #expect(seen.bodyFailed)
        #expect(seen.onCancel)
        #expect(seen.isCancelled)
        await server.shutdown(servicing: client)
    }

    @Test func aCancelledReadingTaskStopsWaitingForTheBody() async throws {
        let outcome = Shared<String?>(nil)
        let (server, client) = connect { stream in
            let reader = Task {
                do {
                    for try await _ in stream.requestBody {}
                    return "finished"
                } catch is CancellationError {
                    return "task cancelled"
                } catch {
                    return "\(error)"
                }
            }
            // The call ends its own way (as a task group would), cancelling the reader it no longer needs; the
            // pause lets the reader reach its wait first (cancelled earlier, it stops the same way).
            try? await Task.sleep(for: .milliseconds(50))
            reader.cancel()
            let result = await reader.value
            outcome.with { $0 = result }
            try? await stream.sendTrailers([("grpc-status", "1")])
        }
        let status = await blocking { () -> String? in
            let id = client.request(path: "/s/Listen", ended: false)
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]?.grpcStatus
        }
        #expect(outcome.current == "task cancelled")
        #expect(status == "1")
        await server.shutdown(servicing: client)
    }

    @Test func aCancelledSendingTaskStopsWaitingForTheBudget() async throws {
        let outcome = Shared<String?>(nil)
        let (server, client) = connect(
            { $0.streamSendBudget = 64 * 1024 }, readsData: false,
            handler: { stream in
                try? await stream.sendHeaders([(":status", "200")])
                let sender = Task {
                    do {
                        // The client reads nothing: past its window and the budget this waits for ever.
                        for _ in 0..<64 { try await stream.sendData([UInt8](repeating: 1, count: 64 * 1024)) }
                        return "all sent"
                    } catch is CancellationError {
                        return "task cancelled"
                    } catch {
                        return "\(error)"
                    }
                }
                try? await Task.sleep(for: .milliseconds(50))
                sender.cancel()
                let result = await sender.value
                outcome.with { $0 = result }
                stream.reset(errorCode: 8)
            })
        await blocking {
            let id = client.request(path: "/s/Export")
            client.pump { $0.responses[id]?.closeCode != nil }
        }
        #expect(outcome.current == "task cancelled")
        await server.shutdown(servicing: client)
    }

    @Test func aLostConnectionCancelsItsStreams() async throws {
        let events = Shared((started: false, sendFailed: false, sendReturned: false, onCancel: false))
        let gate = Gate()
        let (server, client) = connect { stream in
            stream.onCancel { events.with { $0.onCancel = true } }
            events.with { $0.started = true }
            await gate.wait()
            do {
                try await stream.sendHeaders([(":status", "200")])
                events.with { $0.sendReturned = true }
            } catch {
                events.with { $0.sendFailed = error as? HTTP2StreamError == .cancelled }
            }
        }
        await blocking {
            client.request(path: "/s/Hold", ended: false)
            client.pump { _ in events.current.started }
            client.drop()
        }
        // The handler is held until the server has noticed the loss, so its send comes after it.
        #expect(await eventually { server.openConnections == 0 })
        #expect(events.current.onCancel)
        gate.open()
        #expect(await eventually { events.current.sendFailed || events.current.sendReturned })
        #expect(events.current.onCancel)
        #expect(events.current.sendFailed)
    }

    @Test func shutdownSendsGoAwayAndLetsTheOpenStreamFinish() async throws {
        let started = Shared(false)
        let gate = Gate()
        let (server, client) = connect { stream in
            started.with { $0 = true }
            await gate.wait()
            try? await stream.sendHeaders([(":status", "200")])
            try? await stream.sendData(Array("late but whole".utf8))
            try? await stream.sendTrailers([("grpc-status", "0")])
        }
        let id = await blocking { () -> Int32 in
            let id = client.request(path: "/s/Slow")
            client.pump { _ in started.current }
            return id
        }
        let finished = Shared(false)
        let shutdown = Task {
            await server.shutdown(grace: .seconds(30))
            finished.with { $0 = true }
        }
        let noticed = await blocking { client.pump { !$0.goAways.isEmpty } }
        #expect(noticed)
        #expect(!finished.current)
        gate.open()
        let response = await blocking { () -> HTTP2Client.Response? in
            client.pump { $0.responses[id]?.closeCode != nil && $0.peerClosed }
            return client.responses[id]
        }
        await shutdown.value
        #expect(response?.closeCode == 0)
        #expect(String(decoding: response?.data ?? [], as: UTF8.self) == "late but whole")
        #expect(response?.trailer("grpc-status") == "0")
        let last = await blocking { client.goAways.last }
        #expect(last?.lastStreamID == id)
        #expect(last?.errorCode == 0)
        #expect(server.openConnections == 0)
    }

    @Test func aConnectionOverTheLimitIsSentGoAway() async throws {
        let (server, first) = connect(
            { $0.maxConnections = 1 },
            handler: { stream in try? await stream.sendTrailers([("grpc-status", "0")]) })
        let (serverEnd, clientEnd) = socketPair()
        server.adopt(socket: serverEnd)
        let second = HTTP2Client(fd: clientEnd)
        let refused = await blocking { () -> (goAway: Int32?, closed: Bool) in
            second.pump { $0.peerClosed }
            return (second.goAways.first?.lastStreamID, second.peerClosed)
        }
        #expect(refused.goAway == 0)
        #expect(refused.closed)
        // The first connection is still served.
        let status = await blocking { () -> String? in
            let id = first.request(path: "/s/Still")
            first.pump { $0.responses[id]?.closeCode != nil }
            return first.responses[id]?.grpcStatus
        }
        #expect(status == "0")
        await server.shutdown(servicing: first)
    }

    @Test func garbageAfterThePrefaceClosesTheConnectionWithGoAway() async throws {
        let reached = Shared(false)
        let server = HTTP2Server { _ in reached.with { $0 = true } }
        let (serverEnd, clientEnd) = socketPair()
        defer { close(clientEnd) }
        server.adopt(socket: serverEnd)
        let received = await blocking { () -> [UInt8] in
            // The preface, then bytes that are no SETTINGS frame: a connection error (RFC 9113 §3.4).
            let bytes = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            _ = send(clientEnd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            var poller = pollfd(fd: clientEnd, events: Int16(POLLIN), revents: 0)
            while poll(&poller, 1, 20_000) > 0 {
                let count = recv(clientEnd, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            return received
        }
        // Somewhere after the server's SETTINGS: a GOAWAY frame (type 7), then the end of the stream.
        let types = frameTypes(received)
        #expect(types.first == 4)
        #expect(types.contains(7))
        #expect(await eventually { server.openConnections == 0 })
        #expect(!reached.current)
    }

    @Test func anOversizedRequestHeadIsAnswered431WithoutReachingTheHandler() async throws {
        let reached = Shared(false)
        let (server, client) = connect { stream in
            reached.with { $0 = true }
            try? await stream.sendTrailers([("grpc-status", "0")])
        }
        let response = await blocking { () -> HTTP2Client.Response? in
            let id = client.request(path: "/s/Big", headers: [("x-big", String(repeating: "v", count: 20_000))])
            client.pump { $0.responses[id]?.closeCode != nil }
            return client.responses[id]
        }
        #expect(response?.status == "431")
        #expect(!reached.current)
        await server.shutdown(servicing: client)
    }
}

/// The types of the HTTP/2 frames in `bytes`, in order.
private func frameTypes(_ bytes: [UInt8]) -> [UInt8] {
    var types: [UInt8] = []
    var offset = 0
    while offset + 9 <= bytes.count {
        let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
        types.append(bytes[offset + 3])
        offset += 9 + length
    }
    return types
}
