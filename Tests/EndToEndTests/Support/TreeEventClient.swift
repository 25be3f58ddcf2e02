import Foundation
import HearthCore
import Synchronization

/// One Server-Sent Event as a Realtime Database stream sends it.
struct TreeSSE: Sendable, Equatable, CustomStringConvertible {
    var event: String
    var data: String

    /// The `data` of a `put` or `patch` as JSON.
    var json: JSONValue? { try? JSONParser.parse(data) }
    var path: String? { json?["path"]?.stringValue }
    var payload: JSONValue? { json?["data"] }

    var description: String { "\(event): \(data.prefix(300))" }
}

/// A real streaming connection: a raw HTTP/1.1 socket client that sends `Accept: text/event-stream`, decodes the
/// chunked body and parses SSE frames on its own thread, so tests see exactly what a client on the wire sees.
final class TreeEventClient: Sendable {
    private struct State {
        var events: [TreeSSE] = []
        var status: Int?
        var headers: [String: String] = [:]
        var ended = false
        var failure: String?
    }

    private let fd: Int32
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)

    /// Opens `GET path?query` with `Accept: text/event-stream` against 127.0.0.1:`port`.
    init(port: Int, path: String, query: [(String, String)] = [], headers: [String: String] = [:]) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withIPv4Address("127.0.0.1", port: port) { connect(fd, $0, $1) }
        guard connected == 0 else {
            close(fd)
            throw HarnessError("connect() failed: errno \(errno)")
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
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else {
            close(fd)
            throw HarnessError("send() failed")
        }
        let thread = Thread { [self] in readLoop() }
        thread.name = "tree-sse-client"
        thread.start()
    }

    deinit {
        stopped.store(true, ordering: .relaxed)
        // The reader thread holds `self` until it notices; closing the socket here would race with it.
    }

    /// Closes the connection (the server notices on its next write).
    func disconnect() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// The response status, once the head has arrived.
    var status: Int? { state.withLock { $0.status } }
    /// Response headers (lower-cased names).
    var headers: [String: String] { state.withLock { $0.headers } }
    /// Whether the server ended the response.
    var ended: Bool { state.withLock { $0.ended } }
    /// Every event received so far.
    var received: [TreeSSE] { state.withLock { $0.events } }

    /// Waits (at most `timeout`) until `count` events satisfying `filter` have arrived and returns them.
    func events(
        _ count: Int, timeout: Duration = .seconds(20),
        where filter: @Sendable (TreeSSE) -> Bool = { $0.event != "keep-alive" }
    ) async throws -> [TreeSSE] {
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

    /// The next `count` data events (`put`/`patch`) after the first `skip` ones.
    func dataEvents(_ count: Int, after skip: Int = 0) async throws -> [TreeSSE] {
        Array(try await events(skip + count) { $0.event == "put" || $0.event == "patch" }.dropFirst(skip))
    }

    /// Waits until the server ends the stream.
    func waitForEnd(timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !ended {
            if ContinuousClock.now >= deadline { throw HarnessError("the stream did not end: \(received)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func readLoop() {
        var parser = Parser()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        defer { close(fd) }
        while !stopped.load(ordering: .relaxed) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                break
            }
            let output = parser.feed(buffer[0..<count])
            state.withLock { state in
                if let head = output.head {
                    state.status = head.status
                    state.headers = head.headers
                }
                state.events += output.events
                if let failure = output.failure { state.failure = failure }
            }
            if parser.finished { break }
        }
        state.withLock { $0.ended = true }
    }

    /// HTTP head, chunked decoding and SSE framing, fed bytes as they come.
    private struct Parser {
        struct Output {
            var head: (status: Int, headers: [String: String])?
            var events: [TreeSSE] = []
            var failure: String?
        }

        var raw: [UInt8] = []
        var body: [UInt8] = []
        var headDone = false
        var chunked = false
        var contentLength: Int?
        var finished = false

        mutating func feed(_ bytes: ArraySlice<UInt8>) -> Output {
            var output = Output()
            raw += bytes
            if !headDone {
                guard let end = find([13, 10, 13, 10], in: raw) else { return output }
                let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                        in: .whitespaces)
                }
                output.head = (status, headers)
                chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
                contentLength = headers["content-length"].flatMap { Int($0) }
                raw.removeFirst(end + 4)
                headDone = true
            }
            if chunked {
                while let lineEnd = find([13, 10], in: raw) {
                    guard
                        let size = Int(
                            String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "",
                            radix: 16)
                    else {
                        output.failure = "bad chunk header"
                        finished = true
                        break
                    }
                    if size == 0 {
                        finished = true
                        break
                    }
                    guard raw.count >= lineEnd + 2 + size + 2 else { break }
                    body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
                    raw.removeFirst(lineEnd + 2 + size + 2)
                }
            } else {
                body += raw
                raw.removeAll()
                // An ordinary (error) response ends after its Content-Length; the connection may stay open.
                if let contentLength, body.count >= contentLength { finished = true }
            }
            while let end = find([10, 10], in: body) {
                var event = TreeSSE(event: "message", data: "")
                var dataLines: [String] = []
                for line in String(decoding: body[..<end], as: UTF8.self).split(
                    separator: "\n", omittingEmptySubsequences: false)
                {
                    if line.hasPrefix("event:") { event.event = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                    if line.hasPrefix("data:") {
                        dataLines.append(String(line.dropFirst(line.hasPrefix("data: ") ? 6 : 5)))
                    }
                }
                event.data = dataLines.joined(separator: "\n")
                body.removeFirst(end + 2)
                if !(event.event == "message" && dataLines.isEmpty) { output.events.append(event) }
            }
            return output
        }

        private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard haystack.count >= needle.count else { return nil }
            for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
                if Array(haystack[start..<(start + needle.count)]) == needle { return start }
            }
            return nil
        }
    }
}
