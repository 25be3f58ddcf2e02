/// UTF-8 well-formedness checks (Unicode Table 3-7), used where the standard library's validation cannot say where
/// the input went wrong.
enum JSONUTF8 {
    /// Length of a UTF-8 byte-order mark at the start of `bytes`: 3 or 0.
    static func byteOrderMarkLength(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// Length of the well-formed multi-byte sequence starting at `start`, or `nil` when it is ill-formed or cut off
    /// by `end`. Rejects overlong forms, surrogates and scalars above U+10FFFF.
    static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at start: Int, end: Int) -> Int? {
        func continuation(_ k: Int, _ allowed: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            start + k < end && allowed.contains(bytes[start + k])
        }
        switch bytes[start] {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0:
            return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : nil
        case 0xED:
            return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : nil
        case 0xF0:
            return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4:
            return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }

    /// Offset of the first byte of the first ill-formed sequence in `range`, or `nil` when all of it is well-formed.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i < range.upperBound {
            if bytes[i] < 0x80 {
                i += 1
            } else if let length = sequenceLength(in: bytes, at: i, end: range.upperBound) {
                i += length
            } else {
                return i
            }
        }
        return nil
    }

    /// Appends the UTF-8 encoding of `scalar`, which the caller has already checked is a Unicode scalar value.
    static func append(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            buffer.append(UInt8(truncatingIfNeeded: scalar))
        case ..<0x800:
            buffer.append(0xC0 | UInt8(truncatingIfNeeded: scalar >> 6))
            buffer.append(0x80 | UInt8(truncatingIfNeeded: scalar) & 0x3F)
        case ..<0x10000:
            buffer.append(0xE0 | UInt8(truncatingIfNeeded: scalar >> 12))
            buffer.append(0x80 | UInt8(truncatingIfNeeded: scalar >> 6) & 0x3F)
            buffer.append(0x80 | UInt8(truncatingIfNeeded: scalar) & 0x3F)
        default:
            buffer.append(0xF0 | UInt8(truncatingIfNeeded: scalar >> 18))
            buffer.append(0x80 | UInt8(truncatingIfNeeded: scalar >> 12) & 0x3F)
            buffer.append(0x80 | UInt8(truncatingIfNeeded: scalar >> 6) & 0x3F)
            buffer.append(0x80 | UInt8(truncatingIfNeeded: scalar) & 0x3F)
        }
    }
}
