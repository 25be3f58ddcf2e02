/// Writes ``JSONValue``s, and single JSON tokens for hand-written encoders, as UTF-8 bytes.
///
/// Everything appends to a caller's buffer instead of returning new arrays, so a response can be assembled in one
/// growing allocation.
public struct JSONWriter {
    /// Appends `value` as JSON.
    ///
    /// - Parameters:
    ///   - pretty: Two-space indentation, one member or element per line, `"key": value`.
    ///   - sortedKeys: Orders object members by the UTF-8 bytes of their keys so that equal values always produce
    ///     equal bytes (ETags, tests, caches); turn off only where order does not matter and speed does.
    public static func write(
        _ value: JSONValue, into buffer: inout [UInt8], pretty: Bool = false, sortedKeys: Bool = true
    ) {
        var emitter = JSONEmitter(pretty: pretty, sortedKeys: sortedKeys)
        emitter.emit(value, into: &buffer)
    }

    /// Appends `s` as a quoted JSON string.
    ///
    /// Escapes only what JSON requires — `"`, `\` and control characters below U+0020 — and copies everything else,
    /// U+2028 and U+2029 included, as raw UTF-8 so non-ASCII text stays compact.
    public static func appendString(_ s: String, into buffer: inout [UInt8]) {
        var s = s  // `withUTF8` is mutating only so it can make a bridged string contiguous.
        buffer.append(UInt8(ascii: "\""))
        s.withUTF8 { utf8 in appendEscaped(utf8, into: &buffer) }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Appends `s` escaped as in ``appendString(_:into:)`` but without quotes, so a caller can write one JSON string
    /// from several pieces without joining them first.
    public static func appendStringContents(_ s: String, into buffer: inout [UInt8]) {
        var s = s
        s.withUTF8 { utf8 in appendEscaped(utf8, into: &buffer) }
    }

    /// Appends `i` in decimal, without allocating.
    public static func appendInteger(_ i: Int64, into buffer: inout [UInt8]) {
        if i < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = i.magnitude
        if magnitude < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        // 19 digits hold Int64.min's magnitude.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var first = digits.count
            while magnitude != 0 {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }

    /// Appends the shortest decimal form of `d` that parses back to exactly `d`.
    ///
    /// Whole values below 10^16 are written like integers (`3`, as JavaScript does); larger ones in exponent form
    /// (`1e+16`); `-0.0` as `-0`. NaN and the infinities have no JSON form and are written as `null` rather than
    /// trapping, because a writer that can crash a server on one bad value is worse than a lossy one; callers that
    /// need Firestore's `"NaN"` strings handle them before getting here.
    public static func appendDouble(_ d: Double, into buffer: inout [UInt8]) {
        guard d.isFinite else {
            appendASCII("null", into: &buffer)
            return
        }
        // Truncating through Int64 tests for a whole value without `rounded()`, which would pull in libm.
        if d.magnitude < 1e16, Double(Int64(d)) == d {
            if d == 0, d.sign == .minus {
                appendASCII("-0", into: &buffer)
            } else {
                appendInteger(Int64(d), into: &buffer)
            }
            return
        }
        // The standard library prints the shortest round-trip digits and switches to exponent form from 2^53 up and
        // below 10^-4, always in a form JSON accepts ("0.1", "1e-05", "1.7976931348623157e+308").
        buffer.append(contentsOf: d.description.utf8)
    }

    /// Appends the bytes of a literal such as `#"{"name":"#`, already valid JSON text. Cheaper than appending the
    /// literal's `.utf8` view, which goes through String's generic copy for every token of every response.
    public static func appendASCII(_ text: StaticString, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Copies runs of bytes that need no escaping in bulk and escapes the rest.
    static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        var runStart = 0
        for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
            runStart = i + 1
            buffer.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: buffer.append(UInt8(ascii: "\""))
            case 0x5C: buffer.append(UInt8(ascii: "\\"))
            case 0x08: buffer.append(UInt8(ascii: "b"))
            case 0x0C: buffer.append(UInt8(ascii: "f"))
            case 0x0A: buffer.append(UInt8(ascii: "n"))
            case 0x0D: buffer.append(UInt8(ascii: "r"))
            case 0x09: buffer.append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                buffer.append(UInt8(ascii: "u"))
                buffer.append(UInt8(ascii: "0"))
                buffer.append(UInt8(ascii: "0"))
                buffer.append(hex.utf8Start[Int(byte >> 4)])
                buffer.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
}
