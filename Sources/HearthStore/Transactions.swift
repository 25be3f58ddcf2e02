public import HearthCore

/// An open transaction's identity: opaque bytes, base64 on the wire as Firestore's are.
public struct TransactionID: Sendable, Hashable, CustomStringConvertible {
    /// The raw bytes.
    public var bytes: [UInt8]

    /// Wraps raw bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Decodes the wire form (base64, either alphabet).
    /// - Throws: `INVALID_ARGUMENT` when it is not base64.
    public init(base64 text: String) throws(HearthError) {
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw .invalidArgument(
                "Invalid transaction \"\(text.prefix(40))\": pass the transaction returned by beginTransaction.")
        }
        self.bytes = bytes
    }

    /// The wire form (standard base64, as protobuf JSON writes bytes).
    public var base64: String { Base64URL.encodeStandard(bytes) }

    /// The token as clients send it back: base64.
    public var description: String { base64 }
}

/// The kind of transaction to begin.
public enum TransactionMode: Sendable, Equatable {
    /// Reads see one consistent snapshot; no writes.
    case readOnly
    /// Reads are recorded; the commit fails with `ABORTED` if anything read changed meanwhile.
    case readWrite
}
