/// Writes protobuf wire format into one growing buffer.
///
/// Fields are written in the order called; callers write them in field-number order and leave proto3 defaults
/// out, so the bytes equal what Google's runtimes produce with deterministic serialization. A nested message is
/// written in place behind a one-byte length and moved only when it turns out to be 128 bytes or longer, so most
/// nested values (short strings, numbers, small maps) are never copied.
public struct ProtoWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// An empty writer, with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: raw pieces

    /// Appends a base-128 varint.
    public mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends a field's tag.
    public mutating func writeTag(_ number: Int, _ wireType: ProtoWireType) {
        writeVarint(UInt64(number) << 3 | UInt64(wireType.rawValue))
    }

    /// How many bytes `value` takes as a varint.
    public static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    // MARK: fields that are always written (oneof members, repeated elements)

    /// An `int64` field.
    public mutating func writeInt64(_ number: Int, _ value: Int64) {
        writeTag(number, .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    /// An `int32` field (negative values sign-extended to ten bytes, as protobuf writes them).
    public mutating func writeInt32(_ number: Int, _ value: Int32) { writeInt64(number, Int64(value)) }

    /// A `bool` field.
    public mutating func writeBool(_ number: Int, _ value: Bool) {
        writeTag(number, .varint)
        bytes.append(value ? 1 : 0)
    }

    /// A `double` field.
    public mutating func writeDouble(_ number: Int, _ value: Double) {
        writeTag(number, .fixed64)
        let bits = value.bitPattern
        for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * index))) }
    }

    /// A `string` field.
    public mutating func writeString(_ number: Int, _ value: String) {
        writeTag(number, .lengthDelimited)
        writeVarint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// A `bytes` field.
    public mutating func writeBytes(_ number: Int, _ value: [UInt8]) {
        writeTag(number, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A nested message field whose body `body` writes; written even when the body is empty (a set message).
    /// When `body` throws, the writer is left as it was before the call.
    public mutating func writeMessage<Failure: Error>(
        _ number: Int, _ body: (inout ProtoWriter) throws(Failure) -> Void
    ) throws(Failure) {
        let start = bytes.count
        writeTag(number, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        do {
            try body(&self)
        } catch {
            bytes.removeSubrange(start...)
            throw error
        }
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        // The body is longer than a one-byte length says: open the gap the real length needs, then fill it in.
        let size = Self.varintSize(UInt64(length))
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: lengthAt + 1)
        var rest = UInt64(length)
        for index in 0..<size {
            bytes[lengthAt + index] = UInt8(truncatingIfNeeded: rest) | (index < size - 1 ? 0x80 : 0)
            rest >>= 7
        }
    }

    /// A packed repeated `int32` field; nothing when `values` is empty.
    public mutating func writePackedInt32(_ number: Int, _ values: [Int32]) {
        guard !values.isEmpty else { return }
        writeTag(number, .lengthDelimited)
        let size = values.reduce(0) { $0 + Self.varintSize(UInt64(bitPattern: Int64($1))) }
        writeVarint(UInt64(size))
        for value in values { writeVarint(UInt64(bitPattern: Int64(value))) }
    }

    // MARK: proto3 singular fields: nothing when the value is the default

    /// An `int64` field unless it is 0.
    public mutating func writeNonZeroInt64(_ number: Int, _ value: Int64) {
        if value != 0 { writeInt64(number, value) }
    }

    /// An `int32` (or enum) field unless it is 0.
    public mutating func writeNonZeroInt32(_ number: Int, _ value: Int32) {
        if value != 0 { writeInt32(number, value) }
    }

    /// A `bool` field unless it is false.
    public mutating func writeTrue(_ number: Int, _ value: Bool) {
        if value { writeBool(number, true) }
    }

    /// A `string` field unless it is empty.
    public mutating func writeNonEmptyString(_ number: Int, _ value: String) {
        if !value.isEmpty { writeString(number, value) }
    }

    /// A `bytes` field unless it is empty.
    public mutating func writeNonEmptyBytes(_ number: Int, _ value: [UInt8]) {
        if !value.isEmpty { writeBytes(number, value) }
    }
}
