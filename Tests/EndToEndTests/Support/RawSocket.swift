import Foundation
import HearthTesting

/// A blocking TCP connection to the server under test that sends exactly the bytes given, for framing and
/// connection-handling tests that no HTTP client library would produce.
final class RawSocket {
    /// What came back: every byte, and whether the server closed the connection (rather than the read timing out).
    struct Reply {
        var bytes: [UInt8]
        var closedByServer: Bool
        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// The status code of the first status line, or 0.
        var status: Int {
            guard text.hasPrefix("HTTP/1.1 ") else { return 0 }
            return Int(text.dropFirst(9).prefix(3)) ?? 0
        }
        /// How many status lines arrived (a response sent twice shows two).
        var statusLines: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }
        /// The body after the first blank line.
        var body: String { text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n") }
    }

    let fd: Int32

    /// Connects to 127.0.0.1:`port`, from `source` when given (another loopback address such as 127.0.0.2).
    /// `receiveBuffer` shrinks the socket's receive buffer, for a client that stops reading.
    init(port: Int, source: String? = nil, timeout: Int = 10, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: errno \(errno)") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            let bound = withIPv4Address(source, port: 0) { bind(fd, $0, $1) }
            guard bound == 0 else {
                let code = errno
                close(fd)
                throw HarnessError("bind(\(source)) failed: errno \(code)")
            }
        }
        let connected = withIPv4Address("127.0.0.1", port: port) { connect(fd, $0, $1) }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw HarnessError("connect() failed: errno \(code)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw HarnessError("send() failed: errno \(errno)") }
            offset += written
        }
    }

    /// Half-closes: the server sees end of input, the reply can still be read.
    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads until the server closes the connection or nothing arrives for the timeout.
    func readAll() -> Reply {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return Reply(bytes: received, closedByServer: true) }
            if count < 0 { return Reply(bytes: received, closedByServer: errno == ECONNRESET) }
            received += buffer[..<count]
        }
    }
}
