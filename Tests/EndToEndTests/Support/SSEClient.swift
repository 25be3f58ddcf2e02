import Dispatch
import Foundation
import HearthCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A Server-Sent Events client on a raw socket, so tests control reading (a paused client is a slow consumer) and
/// see every byte the server sends. One thread per client reads, undoes the chunked encoding, and collects events.
final class SSEClient: Sendable {
    /// One event: its `event:` name, if any, and its `data:` text.
    struct Event: Sendable, CustomStringConvertible {
        let name: String?
        let data: String

        /// The data parsed as JSON (`nil` when it is not).
        var json: JSONValue? { try? JSONParser.parse(data) }
        var description: String { (name.map { "event: \($0) " } ?? "") + data }
    }

    private struct State {
        var events: [Event] = []
        /// Events handed out by `next`.
        var consumed = 0
        var comments = 0
        var ended = false
        var paused = false
        var closing = false
    }

    private let fd: Int32
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// The session ID from the stream's first event.
    let session: String
    /// The response's status line and header fields, as received.
    let responseHead: String

    /// Opens `GET …/documents:listen` and waits for the `session` event.
    init(port: Int, project: String = "demo", headers: [String] = [], receiveBuffer: Int? = nil) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        fd = descriptor
        guard descriptor >= 0 else { throw HarnessError("socket() failed") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let connected = withIPv4Address("127.0.0.1", port: port) { connect(descriptor, $0, $1) }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw HarnessError("connect() failed: errno \(errno)")
        }
        var request = "GET /v1/projects/\(project)/databases/(default)/documents:listen HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        request += "Accept: text/event-stream\r\n"
        for line in headers { request += line + "\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count
        else {
            Glibc.close(descriptor)
            throw HarnessError("send() failed: errno \(errno)")
        }
        var reader = StreamReader(fd: descriptor)
        let head = try reader.readHead()
        guard head.status == 200 else {
            Glibc.close(descriptor)
            throw HarnessError("GET :listen answered \(head.status): \(head.text)")
        }
        responseHead = head.text
        // The session event is read here, before the reader thread starts, so `session` is known on return.
        var text: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.eventEnd(in: text) == nil {
            guard ContinuousClock.now < deadline, let chunk = reader.nextChunk() else {
                Glibc.close(descriptor)
                throw HarnessError("no session event within 20 s")
            }
            text += chunk
        }
        let end = Self.eventEnd(in: text)!
        let first = Self.parse(String(decoding: text[..<end], as: UTF8.self))
        text.removeFirst(end + 2)
        guard let first, first.name == "session", let id = first.json?["session"]?.stringValue else {
            Glibc.close(descriptor)
            throw HarnessError("the first event is not the session: \(String(describing: first))")
        }
        session = id
        state.withLock {
            $0.events = [first]
            $0.consumed = 1
        }
        let leftover = text
        let handOff = reader
        let thread = Thread { [self] in readLoop(handOff, text: leftover) }
        thread.start()
    }

    deinit { close() }

    /// Stops reading from the socket: the server's writes pile up in the kernel, then in the server.
    func pause() { state.withLock { $0.paused = true } }

    /// Reads again.
    func resume() {
        state.withLock { $0.paused = false }
        wake.signal()
    }

    /// Closes the connection (the reader thread notices within 200 ms).
    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing
        }
        guard first else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        wake.signal()
    }

    /// Whether the server ended the stream (or the connection broke).
    var ended: Bool { state.withLock { $0.ended } }
    /// Heartbeat comment lines received so far.
    var comments: Int { state.withLock { $0.comments } }
    /// Every event received, the session event first.
    var allEvents: [Event] { state.withLock { $0.events } }

    /// The next `count` events not yet handed out, waiting up to 20 s for them.
    func next(_ count: Int) async throws -> [Event] {
        try await take { $0.count >= count ? count : nil }
    }

    /// Waits (up to 20 s) until the events not yet handed out contain one that `isLast` accepts; hands out the
    /// events up to and including it.
    func next(through isLast: @escaping @Sendable (Event) -> Bool) async throws -> [Event] {
        try await take { events in events.firstIndex(where: isLast).map { $0 + 1 } }
    }

    /// Waits (up to 20 s) for `condition` on the whole history.
    func wait(for what: String, _ condition: @escaping @Sendable (SSEClient) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(self) {
            guard ContinuousClock.now < deadline else { throw HarnessError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func take(_ count: @escaping @Sendable ([Event]) -> Int?) async throws -> [Event] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let taken = state.withLock { state -> ([Event]?, [Event], Bool) in
                let pending = Array(state.events[state.consumed...])
                guard let n = count(pending) else { return (nil, pending, state.ended) }
                state.consumed += n
                return (Array(pending.prefix(n)), pending, state.ended)
            }
            if let events = taken.0 { return events }
            if taken.2 || ContinuousClock.now >= deadline {
                throw HarnessError(
                    "\(taken.2 ? "stream ended" : "timed out") waiting for events; pending: \(taken.1.map(\.description).joined(separator: "\n"))"
                )
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func readLoop(_ reader: StreamReader, text: [UInt8]) {
        var reader = reader
        var text = text
        while true {
            let (paused, closing) = state.withLock { ($0.paused, $0.closing) }
            if closing { break }
            if paused {
                _ = wake.wait(timeout: .now() + .milliseconds(200))
                continue
            }
            guard let chunk = reader.nextChunk() else { break }
            text += chunk
            while let end = Self.eventEnd(in: text) {
                let block = String(decoding: text[..<end], as: UTF8.self)
                text.removeFirst(end + 2)
                let event = Self.parse(block)
                state.withLock { state in
                    if let event { state.events.append(event) } else { state.comments += 1 }
                }
            }
        }
        state.withLock { $0.ended = true }
        Glibc.close(fd)
    }

    private static func eventEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 0..<(bytes.count - 1) where bytes[index] == 10 && bytes[index + 1] == 10 { return index }
        return nil
    }

    /// One event block: the event, or `nil` for a comment-only block (a heartbeat).
    private static func parse(_ block: String) -> Event? {
        var name: String?
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("event:") {
                name = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("data:") {
                var value = line.dropFirst(5)
                if value.first == " " { value = value.dropFirst() }
                data.append(String(value))
            }
        }
        if data.isEmpty && name == nil { return nil }
        return Event(name: name, data: data.joined(separator: "\n"))
    }
}

/// Reads an HTTP response head, then a chunked body chunk by chunk, from a socket with a receive timeout.
private struct StreamReader: @unchecked Sendable {
    let fd: Int32
    var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    struct Head {
        var status: Int
        var text: String
    }

    mutating func readHead() throws -> Head {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            if let end = find([13, 10, 13, 10]) {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let parts = text.split(separator: " ")
                var head = Head(status: parts.count > 1 ? Int(parts[1]) ?? 0 : 0, text: text)
                if head.status != 200 {
                    // An error answer: read its body for the message.
                    for _ in 0..<20 { if receive() == false { break } }
                    head.text += String(decoding: buffer, as: UTF8.self)
                }
                return head
            }
            guard ContinuousClock.now < deadline, receive() != false else { throw HarnessError("no response head") }
        }
    }

    /// The next decoded chunk; `nil` at the end of the body or of the connection. Returns an empty chunk when
    /// nothing arrived within the socket's timeout, so the caller can check its flags.
    mutating func nextChunk() -> [UInt8]? {
        while true {
            if let lineEnd = find([13, 10]) {
                let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { return nil }
                if size == 0 { return nil }
                if buffer.count >= lineEnd + 2 + size + 2 {
                    let chunk = Array(buffer[(lineEnd + 2)..<(lineEnd + 2 + size)])
                    buffer.removeFirst(lineEnd + 2 + size + 2)
                    return chunk
                }
            }
            switch receive() {
            case true?: continue
            case nil: return []
            case false?: return nil
            }
        }
    }

    /// `true` when bytes arrived, `nil` on timeout, `false` at end of file or on an error.
    private mutating func receive() -> Bool? {
        var scratch = [UInt8](repeating: 0, count: 65536)
        let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += scratch[..<count]
            return true
        }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return nil }
        return false
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        outer: for start in 0...(buffer.count - pattern.count) {
            for (offset, byte) in pattern.enumerated() where buffer[start + offset] != byte { continue outer }
            return start
        }
        return nil
    }
}
