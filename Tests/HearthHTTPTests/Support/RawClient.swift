import Foundation
import Testing

/// A minimal blocking HTTP/1.1 client over a POSIX socket, so tests control every byte and every disconnect.
final class RawClient {
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        var errno: Int32 = 0
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds so a broken server fails the test.
    init(port: Int, timeout: Int = 20, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var nosigpipe: Int32 = 1
        #if !os(Linux)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &nosigpipe, socklen_t(MemoryLayout<Int32>.size))
        #endif
        _ = nosigpipe
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            // Through `close()`, so `deinit` (which runs when an initializer throws after setting every property)
            // does not close the descriptor a second time — by then its number may belong to another socket.
            close()
            throw Failure(description: "connect() failed: errno \(code)", errno: code)
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        closeSocket(fd)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { sendNoSignal(fd, $0) }
            guard written > 0 else { throw Failure(description: "send() failed: errno \(errno)") }
            offset += written
        }
    }

    /// Sends a request with the given extra header lines and body (Content-Length added when there is a body).
    func request(
        _ method: String, _ target: String, headers: [String] = [], body: [UInt8] = []
    ) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for line in headers { head += line + "\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse(bodyExpected: method != "HEAD")
    }

    /// Reads one response: status line, headers, then a Content-Length, chunked, or read-to-close body.
    func readResponse(bodyExpected: Bool = true) throws -> Response {
        var response = try readHead()
        guard bodyExpected else { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try readExactly(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else {
            while let more = try receive() { response.body += more }
        }
        return response
    }

    /// Reads the status line and headers only (for streams, whose body is read chunk by chunk).
    func readHead() throws -> Response {
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let lines = String(decoding: headEnd, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line: \(lines[0])")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                ))
        }
        return Response(status: status, headers: headers, body: [])
    }

    /// The next chunk of a chunked body, or `nil` at the terminating zero-length chunk.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = String(decoding: try readUntil(Array("\r\n".utf8)), as: UTF8.self)
        guard let size = Int(sizeLine.split(separator: ";")[0].trimmingCharacters(in: .whitespaces), radix: 16) else {
            throw Failure(description: "bad chunk size: \(sizeLine)")
        }
        if size == 0 {
            _ = try readUntil(Array("\r\n".utf8))
            return nil
        }
        let data = try readExactly(size)
        _ = try readExactly(2)
        return data
    }

    /// Whether the server has closed the connection (reads end-of-file or a reset before `timeout`).
    func waitForClose() -> Bool {
        while true {
            do {
                guard try receive() != nil else { return true }
            } catch let failure as Failure {
                return failure.errno == ECONNRESET
            } catch {
                return false
            }
        }
    }

    private func readUntil(_ delimiter: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = firstRange(of: delimiter) {
                let head = Array(buffer[..<range.lowerBound])
                buffer.removeFirst(range.upperBound)
                return head
            }
            guard let more = try receiveFromSocket() else { throw Failure(description: "connection closed early") }
            buffer += more
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard let more = try receiveFromSocket() else { throw Failure(description: "connection closed early") }
            buffer += more
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    private func firstRange(of delimiter: [UInt8]) -> Range<Int>? {
        guard buffer.count >= delimiter.count else { return nil }
        for start in 0...(buffer.count - delimiter.count)
        where buffer[start..<(start + delimiter.count)].elementsEqual(delimiter) {
            return start..<(start + delimiter.count)
        }
        return nil
    }

    /// Buffered bytes first, then the socket; `nil` at end-of-file.
    private func receive() throws -> [UInt8]? {
        if !buffer.isEmpty {
            defer { buffer = [] }
            return buffer
        }
        return try receiveFromSocket()
    }

    private func receiveFromSocket() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { return nil }
        guard count > 0 else {
            let code = errno
            throw Failure(description: "recv() failed: errno \(code)", errno: code)
        }
        return Array(chunk[..<count])
    }
}

// Free functions, because inside `RawClient` the names `close` and `send` mean its own methods.

private func closeSocket(_ fd: Int32) {
    _ = close(fd)
}

private func sendNoSignal(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    #if os(Linux)
    send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes.baseAddress, bytes.count, 0)
    #endif
}

#if os(Linux)
private let streamSocketType = Int32(SOCK_STREAM.rawValue)
#else
private let streamSocketType = SOCK_STREAM
#endif
