/// Tells an HTTP/2-with-prior-knowledge connection (gRPC's h2c) from an HTTP/1.1 one by its first bytes, so both
/// can share one port: an h2c client opens with the 24-byte preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, and no
/// HTTP/1.1 request starts that way (no method is `PRI`).
///
/// Pure: the accept loop peeks bytes (`MSG_PEEK`, so they stay in the socket for whichever server takes it) and
/// asks this until it answers; most HTTP/1.1 connections are decided by their first byte or two.
public enum ConnectionPreface {
    /// What the bytes seen so far say.
    public enum Verdict: Sendable, Equatable {
        /// All 24 bytes of the HTTP/2 preface: hand the connection to the HTTP/2 server.
        case http2
        /// Not the preface: hand the connection to the HTTP/1.1 server.
        case http1
        /// A proper prefix of the preface: peek again when more bytes arrive (or give up at a deadline and treat
        /// it as HTTP/1.1, whose server has its own timeouts).
        case needMoreBytes
    }

    /// The HTTP/2 client connection preface (RFC 9113 §3.4).
    public static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The verdict on the first bytes of a connection.
    public static func classify(_ prefix: some Collection<UInt8>) -> Verdict {
        var count = 0
        for (byte, expected) in zip(prefix, bytes) {
            guard byte == expected else { return .http1 }
            count += 1
        }
        return count == bytes.count ? .http2 : .needMoreBytes
    }
}
