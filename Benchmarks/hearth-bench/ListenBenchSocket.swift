import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Socket helpers of the listener benchmark: connecting, blocking keep-alive requests, clocks, file limits.
enum ListenBenchSocket {
    /// A connected TCP socket to 127.0.0.1:`port` (blocking, TCP_NODELAY).
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket() failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw BenchError("connect() to 127.0.0.1:\(port) failed: errno \(code)")
        }
        return fd
    }

    /// Writes all of `bytes` to a blocking socket.
    static func write(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw BenchError("send() failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Raises the soft limit on open files to the hard limit: 10,000 streams need 10,000 descriptors.
    static func raiseFileLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(limit.rlim_cur)
    }

    /// CLOCK_MONOTONIC in nanoseconds: send and receive stamps of one process.
    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// CLOCK_REALTIME in microseconds, the clock of commit times.
    static func wallMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// Sleeps until the monotonic clock reaches `deadline` (nanoseconds).
    static func sleep(until deadline: Int64) {
        let wait = deadline - monotonicNanoseconds()
        guard wait > 0 else { return }
        var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
        nanosleep(&request, nil)
    }
}

/// A blocking HTTP/1.1 keep-alive connection for set-up requests and paced writes, and raw stream reading for the
/// tree benchmark's listeners.
final class ListenBenchConnection {
    let fd: Int32
    private var pending: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 65_536)

    init(port: Int) throws {
        fd = try ListenBenchSocket.connect(port: port)
    }

    deinit { close(fd) }

    /// Sends a request and reads the whole response (Content-Length bodies); returns status and body.
    @discardableResult
    func request(_ method: String, _ path: String, body: [UInt8] = []) throws -> (status: Int, body: [UInt8]) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(body.count)\r\n\r\n"
        try ListenBenchSocket.write(fd, Array(head.utf8) + body)
        while true {
            if let end = ListenBenchParsing.find([13, 10, 13, 10], in: pending, from: 0) {
                let headText = String(decoding: pending[..<end], as: UTF8.self)
                let status = Int(headText.split(separator: " ").dropFirst().first ?? "") ?? 0
                var length = 0
                for line in headText.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if pending.count >= end + 4 + length {
                    let responseBody = Array(pending[(end + 4)..<(end + 4 + length)])
                    pending.removeFirst(end + 4 + length)
                    return (status, responseBody)
                }
            }
            let chunk = try read()
            guard !chunk.isEmpty else { throw BenchError("\(method) \(path): the server closed the connection") }
            pending += chunk
        }
    }

    /// Writes all of `bytes` (a request the caller built itself, such as a streaming GET).
    func write(_ bytes: [UInt8]) throws {
        try ListenBenchSocket.write(fd, bytes)
    }

    /// Reads what is available, blocking until something is; empty at the end of the stream.
    func read() throws -> [UInt8] {
        let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw BenchError("recv() failed: errno \(errno)") }
        return Array(scratch[..<count])
    }

    /// A request that must answer 2xx.
    func expect(_ method: String, _ path: String, body: String) throws {
        let (status, answer) = try request(method, path, body: Array(body.utf8))
        guard (200..<300).contains(status) else {
            throw BenchError(
                "\(method) \(path) answered \(status): \(String(decoding: answer.prefix(400), as: UTF8.self))")
        }
    }
}

/// Byte-level parsing of the events the benchmark receives (fast enough for 100,000 events per second).
enum ListenBenchParsing {
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count + start else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    /// The decimal digits right after `marker` in `bytes[range]`.
    static func integer(after marker: [UInt8], in bytes: ArraySlice<UInt8>) -> Int64? {
        guard let found = findSlice(marker, in: bytes) else { return nil }
        var index = found + marker.count
        var value: Int64 = 0
        var digits = 0
        while index < bytes.endIndex, bytes[index] >= 48, bytes[index] <= 57 {
            value = value * 10 + Int64(bytes[index] - 48)
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// An RFC 3339 UTC time (`2026-11-29T13:10:23.624879Z`) right after `marker`, in microseconds since 1970.
    static func time(after marker: [UInt8], in bytes: ArraySlice<UInt8>) -> Int64? {
        guard let found = findSlice(marker, in: bytes) else { return nil }
        let start = found + marker.count
        guard bytes.endIndex - start >= 20 else { return nil }
        func number(_ offset: Int, _ length: Int) -> Int {
            var value = 0
            for index in (start + offset)..<(start + offset + length) { value = value * 10 + Int(bytes[index]) - 48 }
            return value
        }
        var parts = tm()
        parts.tm_year = Int32(number(0, 4) - 1900)
        parts.tm_mon = Int32(number(5, 2) - 1)
        parts.tm_mday = Int32(number(8, 2))
        parts.tm_hour = Int32(number(11, 2))
        parts.tm_min = Int32(number(14, 2))
        parts.tm_sec = Int32(number(17, 2))
        var micros: Int64 = 0
        if bytes[start + 19] == UInt8(ascii: ".") {
            var index = start + 20
            var scale: Int64 = 100_000
            while index < bytes.endIndex, bytes[index] >= 48, bytes[index] <= 57 {
                micros += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        return Int64(timegm(&parts)) * 1_000_000 + micros
    }

    private static func findSlice(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while index <= last {
            if haystack[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}
