// Error construction is kept off the hot path and out of the scanning code. Messages quote the input sparingly
// (one character, one escape, a short key prefix) because they end up in logs and client responses.

extension JSONScanner {
    func failure(_ reason: String, at offset: Int) -> JSONError {
        JSONError.locating(reason, at: offset, in: bytes)
    }

    /// The error for whatever stands at `offset` where it is not allowed, including the end of input.
    func unexpected(at offset: Int) -> JSONError {
        guard offset < bytes.count else { return failure("Unexpected end of input", at: bytes.count) }
        return failure("Unexpected \(describeCharacter(at: offset))", at: offset)
    }

    func duplicateKey(_ key: String, at offset: Int) -> JSONError {
        failure("Duplicate key \(Self.quotedForMessage(Self.prefix(of: key, maxBytes: 20)))", at: offset)
    }

    func controlCharacterInString(at offset: Int) -> JSONError {
        failure("Unescaped control character \(Self.codePoint(UInt32(bytes[offset]))) in string", at: offset)
    }

    func invalidUTF8(in range: Range<Int>) -> JSONError {
        let offset = JSONUTF8.firstInvalidOffset(in: bytes, range: range) ?? range.lowerBound
        return failure("Invalid UTF-8 in string", at: offset)
    }

    func unpairedSurrogate(_ unit: UInt16, at offset: Int) -> JSONError {
        failure("Unpaired surrogate \\u\(Self.hex4(UInt32(unit))) in string", at: offset)
    }

    func invalidEscape(at offset: Int) -> JSONError {
        let next = offset + 1
        if next < bytes.count, (0x21...0x7E).contains(bytes[next]) {
            return failure("Invalid escape '\\\(Character(Unicode.Scalar(bytes[next])))'", at: offset)
        }
        return failure("Invalid escape: '\\' followed by \(describeCharacter(at: next))", at: offset)
    }

    /// `character 'x'`, `character U+00E9` or `byte 0xFF`. Only printable ASCII is quoted as itself: a raw
    /// control, invisible or bidirectional-override character would garble or disguise the log line it lands in.
    func describeCharacter(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if (0x20...0x7E).contains(byte) {
            return "character '\(Character(Unicode.Scalar(byte)))'"
        }
        if byte < 0x80 {
            return "character \(Self.codePoint(UInt32(byte)))"
        }
        guard let length = JSONUTF8.sequenceLength(in: bytes, at: offset, end: bytes.count),
            let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
                .unicodeScalars.first
        else {
            return "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
        return "character \(Self.codePoint(scalar.value))"
    }

    static func codePoint(_ value: UInt32) -> String { "U+\(hex4(value))" }

    static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `text` in double quotes, with visible characters as themselves and everything else — controls, spaces other
    /// than U+0020, line separators, invisible format and bidirectional-override characters — as `\u{…}`.
    static func quotedForMessage(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\":
                quoted += "\\\(scalar)"
            case " "..."~":
                quoted.unicodeScalars.append(scalar)
            default:
                switch scalar.properties.generalCategory {
                case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .surrogate,
                    .privateUse, .unassigned:
                    quoted += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                default:
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }

    /// At most `maxBytes` of `string`, cut at a scalar boundary, with `…` when something was dropped.
    static func prefix(of string: String, maxBytes: Int) -> String {
        guard string.utf8.count > maxBytes else { return string }
        var kept = ""
        var used = 0
        for scalar in string.unicodeScalars {
            used += UTF8.width(scalar)
            if used > maxBytes { break }
            kept.unicodeScalars.append(scalar)
        }
        return kept + "…"
    }
}
