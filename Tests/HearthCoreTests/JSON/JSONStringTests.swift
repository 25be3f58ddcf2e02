import HearthCore
import Testing

@Suite("JSON strings and Unicode")
struct JSONStringTests {
    static let decoded: [(String, String)] = [
        (#""plain""#, "plain"),
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\u0000""#, "\u{0}"),
        (#""a\u001fb""#, "a\u{1F}b"),
        (#""\u20AC""#, "€"),
        (#""\uFFFF""#, "\u{FFFF}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD800\uDC00""#, "\u{10000}"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""x\uD83D\uDE00y\n""#, "x😀y\n"),
        ("\"😀\"", "😀"),
        ("\"日本語のテキスト\"", "日本語のテキスト"),
        ("\"한국어 中文 العربية עברית\"", "한국어 中文 العربية עברית"),
        ("\"👩‍👩‍👧‍👦🏳️‍🌈\"", "👩‍👩‍👧‍👦🏳️‍🌈"),
        ("\"e\u{301}\"", "e\u{301}"),
        // The first and last scalar of each UTF-8 length.
        ("\"\u{7F}\u{80}\u{7FF}\u{800}\"", "\u{7F}\u{80}\u{7FF}\u{800}"),
        ("\"\u{FFFF}\u{10000}\u{10FFFF}\"", "\u{FFFF}\u{10000}\u{10FFFF}"),
        ("\"\u{2028}\u{2029}\"", "\u{2028}\u{2029}"),
        ("\"日本\\n語\\u00e9😀\"", "日本\n語é😀"),
    ]

    @Test("decoding", arguments: decoded)
    func decode(json: String, expected: String) throws {
        let value = try JSONParser.parse(json)
        #expect(value == .string(expected))
        // Canonically equivalent strings compare equal in Swift, so check the exact scalars too.
        #expect(value.stringValue.map { Array($0.unicodeScalars) } == Array(expected.unicodeScalars))
    }

    /// The word-at-a-time scan must notice a special byte wherever it falls within an eight-byte word.
    @Test("special bytes are found at every position", arguments: 0..<40)
    func everyPosition(length: Int) throws {
        for position in 0...length {
            let prefix = String(repeating: "a", count: position)
            let suffix = String(repeating: "b", count: length - position)
            let escaped = try JSONParser.parse("\"\(prefix)\\n\(suffix)\"")
            #expect(escaped == .string(prefix + "\n" + suffix))
            let unicode = try JSONParser.parse("\"\(prefix)é\(suffix)\"")
            #expect(unicode == .string(prefix + "é" + suffix))
            let ended = try JSONParser.parse("[\"\(prefix)\",\"\(suffix)\"]")
            #expect(ended == .array([.string(prefix), .string(suffix)]))
            let control = jsonParseError(Array("\"\(prefix)\u{1F}\(suffix)\"".utf8))
            #expect(control?.offset == 1 + position)
            let invalid = jsonParseError([0x22] + Array(prefix.utf8) + [0xFF] + Array(suffix.utf8) + [0x22])
            #expect(invalid?.offset == 1 + position)
            #expect(invalid?.reason == "Invalid UTF-8 in string")
            let unterminated = jsonParseError(Array("[\"\(prefix)é\(suffix)".utf8))
            #expect(unterminated?.offset == 1)
            #expect(unterminated?.reason == "Unterminated string")
        }
    }

    @Test("every scalar survives write and parse")
    func scalarRoundTrip() throws {
        var scalars = String.UnicodeScalarView()
        for value in UInt32(0)...0x10FFFF where value % 7 == 0 || value < 0x100 {
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        let text = String(scalars)
        let parsed = try JSONParser.parse(JSONValue.string(text).serialized())
        #expect(parsed.stringValue.map { Array($0.unicodeScalars) } == Array(text.unicodeScalars))
    }

    @Test("escaped and raw spellings of a key are the same key")
    func escapedKeys() throws {
        let value = try JSONParser.parse(#"{"\u0061":1,"b\u00e9":2}"#)
        #expect(value["a"] == 1)
        #expect(value["bé"] == 2)
        let error = jsonParseError(Array(#"{"a":1,"\u0061":2}"#.utf8))
        #expect(error?.reason == #"Duplicate key "a""#)
        #expect(error?.offset == 7)
    }
}
