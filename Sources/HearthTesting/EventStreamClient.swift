import Dispatch
import Foundation
import Synchronization

/// A Server-Sent Events client on a raw socket, for both channels (the documents listen channel and tree streams):
/// it sends `GET … Accept: text/event-stream`, and one thread per client reads the head, undoes the chunked encoding
/// and collects events, so tests see every byte a client on the wire sees and control reading (a paused client is a
/// slow consumer).
public final class EventStreamClient: Sendable {
    private struct State {
        var head: EventStreamParser.Head?
        var events: [StreamEvent] = []
        /// Events handed out by ``next(_:)`` and ``next(through:)``.
        var consumed = 0
        var comments = 0
        var plainBody: [UInt8] = []
        var ended = false
        var failure: String?
        var paused = false
        var closing = false
        /// The reader thread closed the descriptor: its number may belong to another socket by now.
        var descriptorClosed = false
    }

    private let fd: Int32
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Opens `GET path?query` with `Accept: text/event-stream` (and `headers`) against 127.0.0.1:`port`.
    /// `receiveBuffer` shrinks the socket's receive buffer, for a client that stops reading.
    public init(
        port: Int, path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        receiveBuffer: Int? = nil
    ) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: errno \(errno)") }
        // Reads wake at least every 200 ms, to notice a pause or a close.
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let descriptor = fd
        let connected = withIPv4Address("127.0.0.1", port: port) { connect(descriptor, $0, $1) }
        guard connected == 0 else {
            let code = errno
            Foundation.close(fd)
            throw HarnessError("connect() failed: errno \(code)")
        }
        var target = path
        if !query.isEmpty {
            target +=
                "?"
                + query.map { "\(HTTPClient.encodeQuery($0.0))=\(HTTPClient.encodeQuery($0.1))" }.joined(separator: "&")
        }
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else {
            Foundation.close(fd)
            throw HarnessError("send() failed: errno \(errno)")
        }
        let thread = Thread { [self] in readLoop() }
        thread.name = "hearth-test-sse"
        thread.start()
    }

    deinit { close() }

    // MARK: What arrived

    /// The response status, once the head has arrived.
    public var status: Int? { state.withLock { $0.head?.status } }
    /// Response headers (lower-cased names), once the head has arrived.
    public var headers: [String: String] { state.withLock { $0.head?.headers ?? [:] } }
    /// The status line and header lines as received ("" until the head arrived).
    public var responseHead: String { state.withLock { $0.head?.text ?? "" } }
    /// The body so far when the answer is not an event stream (an error's JSON).
    public var plainBody: String { state.withLock { String(decoding: $0.plainBody, as: UTF8.self) } }
    /// Whether the server ended the response (or the connection broke, or it was closed here).
    public var ended: Bool { state.withLock { $0.ended } }
    /// Comment-only blocks (heartbeats) received so far.
    public var comments: Int { state.withLock { $0.comments } }
    /// Every event received so far.
    public var received: [StreamEvent] { state.withLock { $0.events } }

    // MARK: Control

    /// Stops reading from the socket: the server's writes pile up in the kernel, then in the server.
    public func pause() { state.withLock { $0.paused = true } }

    /// Reads again.
    public func resume() {
        state.withLock { $0.paused = false }
        wake.signal()
    }

    /// Closes the connection (the reader thread notices within 200 ms; the server on its next write).
    public func close() {
        let descriptor = fd
        state.withLock { state in
            defer { state.closing = true }
            // Under the lock the reader thread closes the descriptor with, so a reused number is never shut down.
            if !state.closing && !state.descriptorClosed { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        wake.signal()
    }

    // MARK: Waiting

    /// Waits (at most `timeout`) for the response head; throws if the stream ended first.
    public func waitForHead(timeout: Duration = .seconds(20)) throws {
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.head == nil }) {
            if ended || ContinuousClock.now >= deadline { throw HarnessError("no response head") }
            usleep(2_000)
        }
    }

    /// Blocks (at most `timeout`) until an event arrives or the stream ends; for set-up before any `await`.
    func waitForFirstEvent(timeout: Duration = .seconds(20)) -> StreamEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (first, ended) = state.withLock { ($0.events.first, $0.ended) }
            if first != nil || ended { return first }
            usleep(2_000)
        }
        return nil
    }

    /// Marks the first `count` events as handed out.
    func consume(_ count: Int) { state.withLock { $0.consumed = max($0.consumed, count) } }

    /// Waits (at most `timeout`) until `count` events satisfying `filter` have arrived, from the start of the stream,
    /// and returns them (keep-alives left out by default).
    public func events(
        _ count: Int, timeout: Duration = .seconds(20),
        where filter: @Sendable (StreamEvent) -> Bool = { $0.event != "keep-alive" }
    ) async throws -> [StreamEvent] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (matching, ended, failure) = state.withLock { ($0.events.filter(filter), $0.ended, $0.failure) }
            if matching.count >= count { return Array(matching.prefix(count)) }
            if ended || ContinuousClock.now >= deadline {
                throw HarnessError(
                    "wanted \(count) events, got \(matching.count)\(ended ? " before the stream ended" : " in \(timeout)")\(failure.map { " (\($0))" } ?? ""): \(received)"
                )
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The next `count` tree data events (`put`/`patch`) after the first `skip` ones.
    public func dataEvents(_ count: Int, after skip: Int = 0) async throws -> [StreamEvent] {
        Array(try await events(skip + count) { $0.event == "put" || $0.event == "patch" }.dropFirst(skip))
    }

    /// The next `count` events not yet handed out, waiting up to 20 s for them.
    public func next(_ count: Int) async throws -> [StreamEvent] {
        try await take { $0.count >= count ? count : nil }
    }

    /// Waits (up to 20 s) until the events not yet handed out contain one that `isLast` accepts; hands out the
    /// events up to and including it.
    public func next(through isLast: @escaping @Sendable (StreamEvent) -> Bool) async throws -> [StreamEvent] {
        try await take { events in events.firstIndex(where: isLast).map { $0 + 1 } }
    }

    /// Waits until the server ends the stream.
    public func waitForEnd(timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !ended {
            if ContinuousClock.now >= deadline { throw HarnessError("the stream did not end: \(received)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func take(_ count: @escaping @Sendable ([StreamEvent]) -> Int?) async throws -> [StreamEvent] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let taken = state.withLock { state -> ([StreamEvent]?, [StreamEvent], Bool) in
                let pending = Array(state.events[state.consumed...])
                guard let n = count(pending) else { return (nil, pending, state.ended) }
                state.consumed += n
                return (Array(pending.prefix(n)), pending, state.ended)
            }
            if let events = taken.0 { return events }
            if taken.2 || ContinuousClock.now >= deadline {
                let pending = taken.1.map(\.description).joined(separator: "\n")
                throw HarnessError(
                    "\(taken.2 ? "stream ended" : "timed out") waiting for events; pending: \(pending)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: The reader thread

    private func readLoop() {
        var parser = EventStreamParser()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (paused, closing) = state.withLock { ($0.paused, $0.closing) }
            if closing { break }
            if paused {
                _ = wake.wait(timeout: .now() + .milliseconds(200))
                continue
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                break
            }
            let output = parser.feed(buffer[0..<count])
            let body = parser.plainBody
            state.withLock { state in
                if let head = output.head { state.head = head }
                state.events += output.events
                state.comments += output.comments
                if let failure = output.failure { state.failure = failure }
                if state.head?.headers["content-type"]?.hasPrefix("text/event-stream") != true {
                    state.plainBody = body
                }
            }
            if parser.finished { break }
        }
        let descriptor = fd
        state.withLock { state in
            state.ended = true
            Foundation.close(descriptor)
            state.descriptorClosed = true
        }
    }
}
