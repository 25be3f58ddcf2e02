import HearthCore

/// Where a target's results stood: a position in the change log (a sequence number), opaque to clients.
///
/// On the wire it is base64 of a version byte and the big-endian sequence, so a later version can carry more
/// (a node ID, an epoch) without breaking tokens clients already hold.
public struct ResumeToken: Sendable, Hashable, CustomStringConvertible {
    /// The change-log sequence number: the target reflected every change up to and including it.
    public var sequence: Int64

    /// A token for a change-log position.
    public init(sequence: Int64) {
        self.sequence = sequence
    }

    /// Decodes the wire form; `nil` for anything this server did not issue.
    public init?(base64 text: String) {
        guard let bytes = Base64URL.decode(text), bytes.count == 9, bytes[0] == Self.version else { return nil }
        var value: UInt64 = 0
        for byte in bytes[1...] { value = value << 8 | UInt64(byte) }
        guard value <= UInt64(Int64.max) else { return nil }
        sequence = Int64(value)
    }

    /// The wire form: standard base64, as protobuf JSON writes `bytes`.
    public var base64: String {
        var text: [UInt8] = []
        appendBase64(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the wire form's bytes: nine bytes are exactly twelve base64 characters, no padding. Written by hand
    /// because every consistency marker carries one.
    public func appendBase64(to out: inout [UInt8]) {
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            Self.version, 0, 0, 0, 0, 0, 0, 0, 0
        )
        let value = UInt64(sequence)
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 1...8 { raw[index] = UInt8(truncatingIfNeeded: value >> UInt64(64 - 8 * index)) }
            for group in 0..<3 {
                let triple = UInt32(raw[group * 3]) << 16 | UInt32(raw[group * 3 + 1]) << 8 | UInt32(raw[group * 3 + 2])
                for shift in [18, 12, 6, 0] { out.append(Self.alphabet[Int(triple >> UInt32(shift) & 63)]) }
            }
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `resume@<sequence>`, for logs.
    public var description: String { "resume@\(sequence)" }

    private static let version: UInt8 = 1
}
