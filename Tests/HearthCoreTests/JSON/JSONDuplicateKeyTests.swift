import HearthCore
import Testing

@Suite("JSON duplicate keys")
struct JSONDuplicateKeyTests {
    static let duplicates: [(String, Int, String)] = [
        (#"{"a":1,"a":2}"#, 7, #"Duplicate key "a""#),
        (#"{"a":1,"b":2,"a":3}"#, 13, #"Duplicate key "a""#),
        (#"[{"x":{"k":[],"k":{}}}]"#, 14, #"Duplicate key "k""#),
        (#"{"":1,"":2}"#, 6, #"Duplicate key """#),
        (#"{"q\"":1,"q\u0022":2}"#, 9, #"Duplicate key "q\"""#),
        (#"{"日本":1,"日本":2}"#, 12, #"Duplicate key "日本""#),
        // Invisible, bidirectional and line-breaking characters are spelled out so they cannot disguise a log line.
        (#"{"a\u202Eb\n\u00A0":1,"a\u202Eb\n\u00A0":2}"#, 22, #"Duplicate key "a\u{202E}b\u{A}\u{A0}""#),
    ]

    @Test("rejected by default", arguments: duplicates)
    func rejected(input: String, offset: Int, reason: String) {
        let error = jsonParseError(Array(input.utf8))
        #expect(error?.offset == offset)
        #expect(error?.reason == reason)
    }

    @Test("allowed on request, the last value winning", arguments: duplicates)
    func allowed(input: String, offset: Int, reason: String) throws {
        var options = JSONParser.Options()
        options.allowDuplicateKeys = true
        #expect(throws: Never.self) { try JSONParser.parse(input, options: options) }
    }

    @Test("last value wins")
    func lastWins() throws {
        var options = JSONParser.Options()
        options.allowDuplicateKeys = true
        #expect(try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#, options: options) == ["a": 3, "b": 2])
    }

    /// `[String: JSONValue]` keys compare by canonical equivalence, so precomposed and decomposed spellings collide.
    @Test("canonically equivalent keys count as duplicates")
    func canonicalEquivalence() {
        let error = jsonParseError(Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8))
        #expect(error?.reason.hasPrefix("Duplicate key") == true)
    }

    @Test("the same key in sibling objects is fine")
    func siblings() throws {
        #expect(try JSONParser.parse(#"[{"a":1},{"a":2}]"#) == [["a": 1], ["a": 2]])
        #expect(try JSONParser.parse(#"{"a":{"a":{"a":1}}}"#) == ["a": ["a": ["a": 1]]])
    }
}
