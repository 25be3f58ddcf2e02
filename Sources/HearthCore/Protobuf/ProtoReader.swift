/// Reads protobuf wire format: one message's fields in order, its scalars, and its nested messages as readers of
/// their own.
///
/// Every read is bounds-checked against the message's end, so truncated or hostile input ends in an
/// `INVALID_ARGUMENT` error naming what was wrong, never a crash; nesting is bounded by ``ProtoLimits/maxDepth``
/// and the whole input by the size given at creation. Unknown fields are skipped with ``skip(_:)``, as protobuf
/// requires, whatever their wire type (groups included).
public struct ProtoReader: Sendable {
    // The bytes are shared with every nested reader: a nested message is a range, never a copy.
    private let bytes: [UInt8]
    private var position: Int
    private let end: Int
    /// How many messages enclose this one (0 for the outermost).
    public let depth: Int

    /// A reader of a whole message.
    /// - Throws: `INVALID_ARGUMENT` when the message is larger than `maxBytes`.
    public init(_ bytes: [UInt8], maxBytes: Int = ProtoLimits.maxMessageBytes) throws(HearthError) {
        guard bytes.count <= maxBytes else {
            throw .invalidArgument(
                "The request is \(bytes.count) bytes, more than the maximum of \(maxBytes) bytes.")
        }
        self.init(bytes: bytes, position: 0, end: bytes.count, depth: 0)
    }

    private init(bytes: [UInt8], position: Int, end: Int, depth: Int) {
        self.bytes = bytes
        self.position = position
        self.end = end
        self.depth = depth
    }

    /// Whether every byte of the message has been read.
    public var isAtEnd: Bool { position >= end }

    /// The next field's tag, or `nil` at the end of the message.
    /// - Throws: `INVALID_ARGUMENT` for a malformed tag: field number 0 or too large, wire type 6 or 7, or an
    ///   end-group tag with no group open.
    public mutating func nextTag() throws(HearthError) -> ProtoTag? {
        guard position < end else { return nil }
        let tag = try readTag()
        guard tag.wireType != .endGroup else {
            throw Self.malformed("an end-group tag (field \(tag.number)) with no group open")
        }
        return tag
    }

    private mutating func readTag() throws(HearthError) -> ProtoTag {
        let raw = try readVarint()
        guard raw <= UInt64(UInt32.max) else { throw Self.malformed("a field tag longer than 32 bits") }
        guard let wireType = ProtoWireType(rawValue: UInt8(raw & 7)) else {
            throw Self.malformed("wire type \(raw & 7), which protobuf does not define")
        }
        let number = Int(raw >> 3)
        guard number >= 1, number <= ProtoTag.maxFieldNumber else {
            throw Self.malformed("field number \(number), outside 1...\(ProtoTag.maxFieldNumber)")
        }
        return ProtoTag(number: number, wireType: wireType)
    }

    // MARK: scalars

    /// A base-128 varint of at most ten bytes.
    public mutating func readVarint() throws(HearthError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw Self.truncated("a varint") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw Self.malformed("a varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// An `int64` (two's complement in a varint).
    public mutating func readInt64() throws(HearthError) -> Int64 { Int64(bitPattern: try readVarint()) }

    /// An `int32`: a varint truncated to 32 bits, as protobuf reads it (negative numbers take ten bytes).
    public mutating func readInt32() throws(HearthError) -> Int32 { Int32(truncatingIfNeeded: try readVarint()) }

    /// A `uint32`: a varint truncated to 32 bits.
    public mutating func readUInt32() throws(HearthError) -> UInt32 { UInt32(truncatingIfNeeded: try readVarint()) }

    /// A `bool`: any non-zero varint is true.
    public mutating func readBool() throws(HearthError) -> Bool { try readVarint() != 0 }

    /// A `sint64` (zigzag).
    public mutating func readSInt64() throws(HearthError) -> Int64 { ProtoZigZag.decode(try readVarint()) }

    /// A `sint32` (zigzag).
    public mutating func readSInt32() throws(HearthError) -> Int32 {
        Int32(truncatingIfNeeded: ProtoZigZag.decode(try readVarint()))
    }

    /// Four little-endian bytes.
    public mutating func readFixed32() throws(HearthError) -> UInt32 {
        guard end - position >= 4 else { throw Self.truncated("a fixed32") }
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[position + index]) << UInt32(8 * index) }
        position += 4
        return value
    }

    /// Eight little-endian bytes.
    public mutating func readFixed64() throws(HearthError) -> UInt64 {
        guard end - position >= 8 else { throw Self.truncated("a fixed64") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[position + index]) << UInt64(8 * index) }
        position += 8
        return value
    }

    /// A `double`.
    public mutating func readDouble() throws(HearthError) -> Double { Double(bitPattern: try readFixed64()) }

    /// A `float`.
    public mutating func readFloat() throws(HearthError) -> Float { Float(bitPattern: try readFixed32()) }

    /// The length of a length-delimited field, checked against what is left of the message.
    private mutating func readLength(_ what: String) throws(HearthError) -> Int {
        let length = try readVarint()
        guard length <= UInt64(end - position) else { throw Self.truncated(what) }
        return Int(length)
    }

    /// A `bytes` field.
    public mutating func readBytes() throws(HearthError) -> [UInt8] {
        let length = try readLength("a bytes field")
        defer { position += length }
        return Array(bytes[position..<position + length])
    }

    /// A `string` field, which proto3 requires to be valid UTF-8.
    public mutating func readString() throws(HearthError) -> String {
        let length = try readLength("a string field")
        defer { position += length }
        guard let text = String(validating: bytes[position..<position + length], as: UTF8.self) else {
            throw Self.malformed("a string field that is not valid UTF-8")
        }
        return text
    }

    /// A nested message, as a reader of its own one level deeper.
    /// - Throws: `INVALID_ARGUMENT` when messages nest deeper than ``ProtoLimits/maxDepth``.
    public mutating func readMessage() throws(HearthError) -> ProtoReader {
        let length = try readLength("a nested message")
        guard depth + 1 <= ProtoLimits.maxDepth else {
            throw Self.malformed("messages nested deeper than \(ProtoLimits.maxDepth) levels")
        }
        defer { position += length }
        return ProtoReader(bytes: bytes, position: position, end: position + length, depth: depth + 1)
    }

    /// The elements of a repeated varint field, packed (one length-delimited run) or not (one element per tag):
    /// protobuf parsers must accept both.
    public mutating func readRepeatedVarint(
        _ tag: ProtoTag, into values: inout [UInt64]
    ) throws(HearthError) {
        switch tag.wireType {
        case .varint:
            values.append(try readVarint())
        case .lengthDelimited:
            let length = try readLength("a packed repeated field")
            let stop = position + length
            var packed = ProtoReader(bytes: bytes, position: position, end: stop, depth: depth)
            while !packed.isAtEnd { values.append(try packed.readVarint()) }
            position = stop
        default:
            try skip(tag)
        }
    }

    /// The elements of a repeated `int32` field, packed or not.
    public mutating func readRepeatedInt32(_ tag: ProtoTag, into values: inout [Int32]) throws(HearthError) {
        var raw: [UInt64] = []
        try readRepeatedVarint(tag, into: &raw)
        for value in raw { values.append(Int32(truncatingIfNeeded: value)) }
    }

    // MARK: unknown fields

    /// Skips the value of a field this reader does not know, whatever its wire type; a group is skipped up to
    /// its matching end-group tag.
    public mutating func skip(_ tag: ProtoTag) throws(HearthError) {
        switch tag.wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try readFixed64()
        case .fixed32: _ = try readFixed32()
        case .lengthDelimited: position += try readLength("a length-delimited field")
        case .startGroup: try skipGroup(number: tag.number, depth: depth + 1)
        case .endGroup: throw Self.malformed("an end-group tag (field \(tag.number)) with no group open")
        }
    }

    private mutating func skipGroup(number: Int, depth: Int) throws(HearthError) {
        guard depth <= ProtoLimits.maxDepth else {
            throw Self.malformed("groups nested deeper than \(ProtoLimits.maxDepth) levels")
        }
        while true {
            guard position < end else { throw Self.truncated("a group (field \(number)) without its end tag") }
            let tag = try readTag()
            switch tag.wireType {
            case .endGroup:
                guard tag.number == number else {
                    throw Self.malformed("group \(number) closed by the end tag of field \(tag.number)")
                }
                return
            case .startGroup: try skipGroup(number: tag.number, depth: depth + 1)
            default: try skip(tag)
            }
        }
    }

    // MARK: errors

    static func truncated(_ what: String) -> HearthError {
        .invalidArgument("Invalid protobuf message: it ends inside \(what).")
    }

    static func malformed(_ what: String) -> HearthError {
        .invalidArgument("Invalid protobuf message: \(what).")
    }
}

/// ZigZag encoding of signed integers (`sint32`, `sint64`): small magnitudes of either sign take few bytes.
public enum ProtoZigZag {
    /// Encodes: 0 → 0, -1 → 1, 1 → 2, -2 → 3, …
    public static func encode(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    /// Decodes.
    public static func decode(_ value: UInt64) -> Int64 { Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1))) }
}
