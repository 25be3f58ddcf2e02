public import HearthCore

/// gRPC's framing of messages on an HTTP/2 stream: each message is a compressed flag (one byte), a big-endian
/// 32-bit length and the message; a call ends with `grpc-status` and `grpc-message` trailers.
public enum GRPCFraming {
    /// The bytes of one uncompressed message with its five-byte prefix.
    public static func frame(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0]
        out.reserveCapacity(message.count + 5)
        let length = UInt32(message.count)
        for shift in [24, 16, 8, 0] as [UInt32] { out.append(UInt8(truncatingIfNeeded: length >> shift)) }
        out.append(contentsOf: message)
        return out
    }

    /// The trailers that end a call: `grpc-status` (the google.rpc code) and, on an error, `grpc-message`.
    public static func trailers(for error: HearthError?) -> [(name: String, value: String)] {
        guard let error else { return [("grpc-status", "0")] }
        return [("grpc-status", String(error.code.rawValue)), ("grpc-message", percentEncoded(error.message))]
    }

    /// `grpc-message`'s encoding: UTF-8, with `%` and every byte outside printable ASCII as `%XX`.
    public static func percentEncoded(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "%") {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Reads gRPC messages out of a stream's DATA bytes as they arrive, in any split.
///
/// A message's length is checked against the limit from its prefix, before its body is waited for, so a client
/// cannot make the server hold more than one message of at most `maxMessageBytes` plus what the transport's flow
/// control lets it send ahead.
public struct GRPCMessageReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The largest message accepted.
    public let maxMessageBytes: Int

    /// A reader accepting messages of up to `maxMessageBytes` (Firestore's 10 MiB by default).
    public init(maxMessageBytes: Int = ProtoLimits.maxMessageBytes) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes received and not yet read as messages.
    public var pendingBytes: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        // Read bytes are dropped once they are most of the buffer, so it never holds more than twice what is unread.
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, or `nil` until more bytes arrive.
    /// - Throws: `RESOURCE_EXHAUSTED` for a message over the limit; `INTERNAL` for a compressed message (Hearth
    ///   announces no `grpc-accept-encoding`, so a client may not send one) or a flag other than 0 and 1.
    public mutating func next() throws(HearthError) -> [UInt8]? {
        guard pendingBytes >= 5 else { return nil }
        let flag = buffer[start]
        guard flag == 0 else {
            throw .internal(
                flag == 1
                    ? "A compressed message arrived, but no compression was negotiated (grpc-encoding)."
                    : "Invalid gRPC message flag \(flag).")
        }
        var length = 0
        for index in 1...4 { length = length << 8 | Int(buffer[start + index]) }
        guard length <= maxMessageBytes else {
            throw HearthError(
                .resourceExhausted,
                "Received a message of \(length) bytes, more than the maximum of \(maxMessageBytes) bytes.")
        }
        guard pendingBytes >= 5 + length else { return nil }
        let message = Array(buffer[(start + 5)..<(start + 5 + length)])
        start += 5 + length
        return message
    }
}
