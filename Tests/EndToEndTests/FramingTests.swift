import Foundation
import HearthTesting
import Testing

/// Requests whose body framing is ambiguous or unsupported: each is answered once, with a JSON error, and the
/// connection closed (RFC 9112 §6.1, §6.3), instead of being served, kept open or left waiting for 300 s.
@Suite(.sharedHearth)
struct FramingTests {
    static let cases: [(name: String, request: String, status: Int)] = [
        (
            "two different Content-Lengths",
            "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400
        ),
        (
            "Content-Length and Transfer-Encoding",
            "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            400
        ),
        (
            "a transfer coding other than chunked",
            "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nhello", 501
        ),
        (
            "chunked that is not the only coding",
            "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501
        ),
    ]

    @Test(arguments: 0..<cases.count)
    func answeredWithJSONAndClosed(_ index: Int) throws {
        let (name, request, status) = Self.cases[index]
        let server = try SharedHearth.server
        let socket = try RawSocket(port: server.port, timeout: 10)
        try socket.send(request)
        let reply = socket.readAll()
        #expect(reply.status == status, "\(name): \(reply.text)")
        #expect(reply.statusLines == 1, "\(name): the response must be sent once: \(reply.text)")
        #expect(reply.body.hasPrefix("{\"error\":{\"code\":\(status)"), "\(name): \(reply.text)")
        #expect(reply.closedByServer, "\(name): the server must close the connection")
    }

    /// A chunk size of 2^64-1 followed by silence: closed once the body has been silent for 30 s, not after the
    /// 300 s idle timeout.
    @Test func stalledHugeChunkIsClosed() throws {
        let server = try SharedHearth.server
        let socket = try RawSocket(port: server.port, timeout: 90)
        let start = ContinuousClock.now
        try socket.send(
            "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\nabc")
        let reply = socket.readAll()
        #expect(reply.closedByServer, "\(reply.text)")
        #expect(ContinuousClock.now - start < .seconds(60), "closed only after \(ContinuousClock.now - start)")
    }
}
