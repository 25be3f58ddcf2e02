import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP connection to 127.0.0.1 for the tree benchmark's own clients (wrk cannot hold SSE streams or
/// timestamp deliveries): keep-alive requests for the paced writer, and raw stream reading for listeners.
final class TreeSocket {
    let fd: Int32
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket() failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
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
            close(fd)
            throw BenchError("connect() to 127.0.0.1:\(port) failed: errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw BenchError("send() failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads what is available (blocking until something is); empty at end of stream.
    func read(max: Int = 65_536) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw BenchError("recv() failed: errno \(errno)") }
        return Array(buffer[0..<count])
    }

    /// Sends one HTTP/1.1 keep-alive request and reads its whole response; returns the status.
    func request(_ method: String, _ path: String, body: [UInt8] = []) throws -> Int {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(body.count)\r\n\r\n"
        try write(Array(head.utf8) + body)
        while true {
            if let end = Self.find([13, 10, 13, 10], in: pending) {
                let headText = String(decoding: pending[..<end], as: UTF8.self)
                let status = Int(headText.split(separator: " ").dropFirst().first ?? "") ?? 0
                var length = 0
                for line in headText.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if pending.count >= end + 4 + length {
                    pending.removeFirst(end + 4 + length)
                    return status
                }
            }
            let chunk = try read()
            guard !chunk.isEmpty else { throw BenchError("\(method) \(path): the server closed the connection") }
            pending += chunk
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard haystack.count >= needle.count + start else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] {
                var matches = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matches = false
                    break
                }
                if matches { return index }
            }
            index += 1
        }
        return nil
    }
}
