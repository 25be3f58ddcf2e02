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
        var bytes: [UInt8] = [Self.version]
        let value = UInt64(sequence)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        return Base64URL.encodeStandard(bytes)
    }

    public var description: String { "resume@\(sequence)" }

    private static let version: UInt8 = 1
}
