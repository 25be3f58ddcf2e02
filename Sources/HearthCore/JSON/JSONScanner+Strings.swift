extension JSONScanner {
    /// Reads the string whose opening quote is at `index`.
    ///
    /// Most strings have no escapes, so the common case finds the closing quote and makes the `String` straight from
    /// the input bytes; only a string with a backslash is decoded through `scratch`.
    mutating func parseString() throws(JSONError) -> String {
        let quote = index
        let end = bytes.count
        // OR of every byte seen: its top bit says whether the string needs UTF-8 validation at all.
        var seen: UInt8 = 0
        // The word scan stops at the word holding the byte that ends the run (or near the end of input), so the rest
        // is at most a few bytes, read one at a time without going back to the word scan.
        var i = skipPlainWords(from: quote + 1, seen: &seen)
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                let contents = UnsafeBufferPointer(rebasing: bytes[(quote + 1)..<i])
                if seen < 0x80 { return String(decoding: contents, as: UTF8.self) }
                guard let string = String(validating: contents, as: UTF8.self) else {
                    throw invalidUTF8(in: (quote + 1)..<i)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(quote: quote, firstEscape: i, seen: seen)
            }
            if byte < 0x20 { throw controlCharacterInString(at: i) }
            seen |= byte
            i += 1
        }
        throw failure("Unterminated string", at: quote)
    }

    /// Skips eight bytes at a time while none of them is a quote, a backslash or a control character, folding them
    /// into `seen`. Returns where byte-by-byte scanning must resume.
    ///
    /// Uses the classic SWAR zero-byte test: `(w - 0x01…01) & ~w & 0x80…80` is non-zero exactly when some byte of
    /// `w` is zero, `w ^ (0x01…01 * c)` turns bytes equal to `c` into zeros, and subtracting `0x01…01 * 0x20`
    /// instead flags bytes below 0x20.
    func skipPlainWords(from start: Int, seen: inout UInt8) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = start
        var high: UInt64 = 0
        while i + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let hasQuote = (quotes &- ones) & ~quotes
            let hasBackslash = (backslashes &- ones) & ~backslashes
            let hasControl = (word &- ones &* 0x20) & ~word
            if (hasQuote | hasBackslash | hasControl) & highs != 0 { break }
            high |= word
            i += 8
        }
        if high & highs != 0 { seen |= 0x80 }
        return i
    }

    /// Finishes a string that contains at least one escape, decoding it into `scratch`.
    mutating func parseEscapedString(quote: Int, firstEscape: Int, seen: UInt8) throws(JSONError) -> String {
        let end = bytes.count
        var seen = seen
        scratch.removeAll(keepingCapacity: true)
        var runStart = quote + 1
        var i = firstEscape
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                index = i + 1
                if seen < 0x80 { return String(decoding: scratch, as: UTF8.self) }
                // Escapes only ever add whole, well-formed sequences, so scratch is ill-formed exactly when the raw
                // input between the quotes is, and the error can point into the input.
                guard let string = String(validating: scratch, as: UTF8.self) else {
                    throw invalidUTF8(in: (quote + 1)..<i)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                i = try decodeEscape(at: i, quote: quote)
                runStart = i
                continue
            }
            if byte < 0x20 { throw controlCharacterInString(at: i) }
            seen |= byte
            i += 1
        }
        throw failure("Unterminated string", at: quote)
    }

    /// Appends what the escape at `start` stands for to `scratch` and returns the offset just past it.
    mutating func decodeEscape(at start: Int, quote: Int) throws(JSONError) -> Int {
        guard start + 1 < bytes.count else { throw failure("Unterminated string", at: quote) }
        let decoded: UInt8
        switch bytes[start + 1] {
        case UInt8(ascii: "\""): decoded = 0x22
        case UInt8(ascii: "\\"): decoded = 0x5C
        case UInt8(ascii: "/"): decoded = 0x2F
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"): return try decodeUnicodeEscape(at: start)
        default: throw invalidEscape(at: start)
        }
        scratch.append(decoded)
        return start + 2
    }

    /// Decodes `\uXXXX`, or a `\uD8xx\uDCxx` surrogate pair, at `start`.
    mutating func decodeUnicodeEscape(at start: Int) throws(JSONError) -> Int {
        guard let unit = hex4(at: start + 2) else { throw failure("Invalid \\u escape", at: start) }
        var next = start + 6
        var scalar = UInt32(unit)
        switch unit {
        case 0xD800...0xDBFF:
            guard next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                throw unpairedSurrogate(unit, at: start)
            }
            guard let low = hex4(at: next + 2) else { throw failure("Invalid \\u escape", at: next) }
            guard (0xDC00...0xDFFF).contains(low) else { throw unpairedSurrogate(unit, at: start) }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw unpairedSurrogate(unit, at: start)
        default:
            break
        }
        JSONUTF8.append(scalar, to: &scratch)
        return next
    }

    /// The four hex digits at `start` as a UTF-16 code unit, or `nil` if they are not four hex digits.
    func hex4(at start: Int) -> UInt16? {
        guard start + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[start..<start + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }
}
