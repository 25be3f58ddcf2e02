import HearthHTTP
import Testing

@Suite struct ConnectionPrefaceTests {
    @Test(arguments: [
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", ConnectionPreface.Verdict.http2),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u{0}\u{0}\u{12}\u{4}", .http2),
        ("", .needMoreBytes),
        ("P", .needMoreBytes),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r", .needMoreBytes),
        ("POST /v1/projects/p/databases/(default)/documents:commit HTTP/1.1\r\n", .http1),
        ("PUT /x.json HTTP/1.1\r\n", .http1),
        ("PATCH /x HTTP/1.1\r\n", .http1),
        ("GET / HTTP/1.1\r\n", .http1),
        ("PRI * HTTP/1.1\r\n", .http1),
        ("\u{16}\u{3}\u{1}", .http1),
    ])
    func firstBytesDecideTheServer(prefix: String, verdict: ConnectionPreface.Verdict) {
        #expect(ConnectionPreface.classify(Array(prefix.utf8)) == verdict)
    }
}
