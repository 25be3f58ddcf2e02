/// Order-preserving byte encodings of values and paths, for index entries.
///
/// Comparing two encodings with `memcmp` gives the same answer as ``Value/compare(_:_:)`` on the values
/// they encode, so a storage engine can serve equality, ranges and `orderBy` as byte-range scans. Equivalent
/// values (`1` and `1.0`, `-0.0` and `0.0`) encode to identical bytes.
public enum IndexKey {
    private enum Tag {
        static let null: UInt8 = 0x05
        static let `false`: UInt8 = 0x0A
        static let `true`: UInt8 = 0x0B
        static let number: UInt8 = 0x10
        static let timestamp: UInt8 = 0x20
        static let string: UInt8 = 0x30
        static let bytes: UInt8 = 0x40
        static let reference: UInt8 = 0x50
        static let geoPoint: UInt8 = 0x60
        static let array: UInt8 = 0x70
        static let map: UInt8 = 0x80
    }

    /// The encoding of one value.
    public static func encode(_ value: Value) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        append(value, to: &bytes)
        return bytes
    }

    /// The encoding of a document path's segments, ordered segment by segment as Firestore orders `__name__`.
    public static func encode(segments: some Sequence<some StringProtocol>) -> [UInt8] {
        var bytes: [UInt8] = []
        for segment in segments { appendEscaped(segment.utf8, to: &bytes) }
        return bytes
    }

    /// The smallest encoding of any value of the given type order (see ``Value/typeOrder``), and the smallest
    /// encoding above every value of that type: the bounds of a scan over one type.
    public static func typeRange(_ typeOrder: Int) -> (lower: [UInt8], upper: [UInt8]) {
        let tags: [UInt8] = [
            Tag.null, Tag.false, Tag.number, Tag.timestamp, Tag.string, Tag.bytes, Tag.reference, Tag.geoPoint,
            Tag.array, Tag.map,
        ]
        let lower = tags[typeOrder]
        let upper: UInt8 = typeOrder + 1 < tags.count ? tags[typeOrder + 1] : 0xFF
        return ([lower], [upper])
    }

    static func append(_ value: Value, to bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(Tag.null)
        case .boolean(let flag):
            bytes.append(flag ? Tag.true : Tag.false)
        case .integer(let integer):
            bytes.append(Tag.number)
            bytes.append(0x01)
            let approximation = Double(integer)
            appendOrdered(approximation, to: &bytes)
            // The exact distance to the double keeps distinct large integers apart and sorted.
            let offset = Int128(integer) - Int128(approximation)
            appendOrdered(Int64(offset), to: &bytes)
        case .double(let double):
            bytes.append(Tag.number)
            if double.isNaN {
                bytes.append(0x00)
            } else {
                bytes.append(0x01)
                appendOrdered(double == 0 ? 0 : double, to: &bytes)
                appendOrdered(Int64(0), to: &bytes)
            }
        case .timestamp(let timestamp):
            bytes.append(Tag.timestamp)
            appendOrdered(timestamp.seconds, to: &bytes)
            appendBigEndian(UInt32(timestamp.nanos), to: &bytes)
        case .string(let string):
            bytes.append(Tag.string)
            appendEscaped(string.utf8, to: &bytes)
        case .bytes(let data):
            bytes.append(Tag.bytes)
            appendEscaped(data, to: &bytes)
        case .reference(let name):
            bytes.append(Tag.reference)
            for segment in name.split(separator: "/", omittingEmptySubsequences: false) {
                appendEscaped(segment.utf8, to: &bytes)
            }
            bytes.append(contentsOf: [0x00, 0x00])
        case .geoPoint(let latitude, let longitude):
            bytes.append(Tag.geoPoint)
            appendOrdered(latitude == 0 ? 0 : latitude, to: &bytes)
            appendOrdered(longitude == 0 ? 0 : longitude, to: &bytes)
        case .array(let elements):
            bytes.append(Tag.array)
            for element in elements { append(element, to: &bytes) }
            bytes.append(0x00)
        case .map(let fields):
            bytes.append(Tag.map)
            for key in fields.keys.sorted(by: { Value.compareBytes($0.utf8, $1.utf8) < 0 }) {
                appendEscaped(key.utf8, to: &bytes)
                append(fields[key]!, to: &bytes)
            }
            bytes.append(contentsOf: [0x00, 0x00])
        }
    }

    /// Bytes with 0x00 escaped as 0x00 0xFF and a 0x00 0x01 terminator, so a prefix sorts before its extensions.
    static func appendEscaped(_ source: some Sequence<UInt8>, to bytes: inout [UInt8]) {
        // Callers in other modules get this unspecialized, where a byte-by-byte loop pays a witness call per byte;
        // a string's contiguous UTF-8 without a NUL (nearly every ID and field name) is copied in one go.
        let copied: Bool? = source.withContiguousStorageIfAvailable { buffer in
            guard !buffer.contains(0) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if copied != true {
            for byte in source {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
        }
        bytes.append(0x00)
        bytes.append(0x01)
    }

    private static func appendOrdered(_ double: Double, to bytes: inout [UInt8]) {
        let bits = double.bitPattern
        appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &bytes)
    }

    private static func appendOrdered(_ integer: Int64, to bytes: inout [UInt8]) {
        appendBigEndian(UInt64(bitPattern: integer) ^ (1 << 63), to: &bytes)
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ integer: T, to bytes: inout [UInt8]) {
        var bigEndian = integer.bigEndian
        withUnsafeBytes(of: &bigEndian) { bytes.append(contentsOf: $0) }
    }
}
