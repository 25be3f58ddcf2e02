import Foundation
import Synchronization

/// A minimal SMTP server on 127.0.0.1 for tests: accepts connections one at a time, speaks just enough ESMTP for
/// libcurl (EHLO, AUTH PLAIN/LOGIN, MAIL, RCPT, DATA, QUIT), and records what it received.
final class FakeSMTPServer: Sendable {
    struct Received: Sendable {
        var mailFrom: String
        var recipients: [String]
        var data: String
        var authenticated: String?
    }

    let port: Int
    private let listener: Int32
    private let rejectRecipients: Bool
    private let store = Mutex<[Received]>([])

    var messages: [Received] { store.withLock { $0 } }

    init(rejectRecipients: Bool = false) throws {
        self.rejectRecipients = rejectRecipients
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Wakes the accept loop, which then closes the listener itself: closing it here could hand its descriptor
    /// number to another test's socket while the loop still accepts on it.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                close(listener)
                return
            }
            serve(connection)
            close(connection)
        }
    }

    private func serve(_ fd: Int32) {
        var reader = LineReader(fd: fd)
        func reply(_ text: String) { _ = text.withCString { write(fd, $0, strlen($0)) } }
        reply("220 fake.test ESMTP\r\n")
        var current = Received(mailFrom: "", recipients: [], data: "")
        while let line = reader.next() {
            let upper = line.uppercased()
            if upper.hasPrefix("EHLO") || upper.hasPrefix("HELO") {
                reply("250-fake.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n")
            } else if upper.hasPrefix("AUTH PLAIN") {
                var credential = String(line.dropFirst("AUTH PLAIN".count)).trimmingCharacters(in: .whitespaces)
                if credential.isEmpty {
                    reply("334 \r\n")
                    credential = reader.next() ?? ""
                }
                let decoded = Data(base64Encoded: credential).map { String(decoding: $0, as: UTF8.self) } ?? ""
                current.authenticated = decoded.split(separator: "\0", omittingEmptySubsequences: false).dropFirst()
                    .joined(separator: ":")
                reply("235 2.7.0 ok\r\n")
            } else if upper.hasPrefix("MAIL FROM:") {
                current.mailFrom = String(line.dropFirst("MAIL FROM:".count)).components(separatedBy: " ")[0]
                reply("250 ok\r\n")
            } else if upper.hasPrefix("RCPT TO:") {
                if rejectRecipients {
                    reply("550 5.1.1 no such user\r\n")
                } else {
                    current.recipients.append(String(line.dropFirst("RCPT TO:".count)))
                    reply("250 ok\r\n")
                }
            } else if upper == "DATA" {
                reply("354 go ahead\r\n")
                var lines: [String] = []
                while let dataLine = reader.next(), dataLine != "." { lines.append(dataLine) }
                current.data = lines.joined(separator: "\r\n")
                let finished = current
                store.withLock { $0.append(finished) }
                current = Received(mailFrom: "", recipients: [], data: "")
                reply("250 queued\r\n")
            } else if upper == "QUIT" {
                reply("221 bye\r\n")
                return
            } else if upper == "RSET" || upper == "NOOP" {
                reply("250 ok\r\n")
            } else {
                reply("502 unknown\r\n")
            }
        }
    }
}

/// CRLF-terminated lines from a socket.
private struct LineReader {
    let fd: Int32
    var buffer: [UInt8] = []

    mutating func next() -> String? {
        while true {
            if let index = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer += chunk.prefix(count)
        }
    }
}
