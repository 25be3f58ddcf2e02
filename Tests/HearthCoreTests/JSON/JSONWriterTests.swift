import HearthCore
import Testing

@Suite("JSONWriter")
struct JSONWriterTests {
    static let strings: [(String, String)] = [
        ("", #""""#),
        ("plain", #""plain""#),
        ("a\"b", #""a\"b""#),
        ("a\\b", #""a\\b""#),
        ("/", #""/""#),
        ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
        ("\u{0}", #""\u0000""#),
        ("\u{1}\u{1F}\u{B}", #""\u0001\u001f\u000b""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é日本😀", "\"é日本😀\""),
        ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
        ("<script>&'", #""<script>&'""#),
        ("long run then \"quote\" and \\ and \n end", #""long run then \"quote\" and \\ and \n end""#),
    ]

    @Test("strings are quoted and minimally escaped", arguments: strings)
    func string(input: String, expected: String) throws {
        var buffer: [UInt8] = []
        JSONWriter.appendString(input, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
        #expect(try JSONParser.parse(buffer) == .string(input))
    }

    static let integers: [(Int64, String)] = [
        (0, "0"), (7, "7"), (9, "9"), (10, "10"), (-1, "-1"), (-10, "-10"), (1_234_567_890, "1234567890"),
        (.max, "9223372036854775807"), (.min, "-9223372036854775808"), (.min + 1, "-9223372036854775807"),
    ]

    @Test("integers", arguments: integers)
    func integer(value: Int64, expected: String) {
        var buffer: [UInt8] = []
        JSONWriter.appendInteger(value, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
    }

    static let doubles: [(Double, String)] = [
        (1.5, "1.5"), (-1.5, "-1.5"), (0.1, "0.1"), (3, "3"), (-3, "-3"), (0, "0"), (-0.0, "-0"),
        (1e15, "1000000000000000"), (9_999_999_999_999_998, "9999999999999998"), (1e16, "1e+16"),
        (-1e16, "-1e+16"), (1e300, "1e+300"), (1e-7, "1e-07"), (0.0001, "0.0001"), (123_456.789, "123456.789"),
        (.leastNonzeroMagnitude, "5e-324"), (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (.leastNormalMagnitude, "2.2250738585072014e-308"), (0.30000000000000004, "0.30000000000000004"),
        (.nan, "null"), (.infinity, "null"), (-.infinity, "null"), (.signalingNaN, "null"),
    ]

    @Test("doubles use the shortest exact form", arguments: doubles)
    func double(value: Double, expected: String) {
        var buffer: [UInt8] = []
        JSONWriter.appendDouble(value, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
    }

    @Test("compact output")
    func compact() {
        let value: JSONValue = ["b": [1, 2.5, "x", true, false, .null], "a": [:], "c": []]
        #expect(jsonText(value) == #"{"a":{},"b":[1,2.5,"x",true,false,null],"c":[]}"#)
        #expect(value.jsonString == jsonText(value))
        #expect(value.serialized() == Array(jsonText(value).utf8))
    }

    @Test("pretty output")
    func pretty() {
        let value: JSONValue = ["b": [1, ["z": .null, "y": []]], "a": "x", "c": [:]]
        let expected = """
            {
              "a": "x",
              "b": [
                1,
                {
                  "y": [],
                  "z": null
                }
              ],
              "c": {}
            }
            """
        #expect(jsonText(value, pretty: true) == expected)
        #expect(String(decoding: value.serialized(pretty: true), as: UTF8.self) == expected)
        #expect(jsonText(42, pretty: true) == "42")
        #expect(jsonText([], pretty: true) == "[]")
    }

    /// Byte order differs from UTF-16 order (U+FFFF vs U+10000) and from `String`'s `<` for non-ASCII text.
    @Test("keys are sorted by UTF-8 bytes")
    func keyOrder() {
        let keys = ["\u{10000}", "\u{FFFF}", "é", "z", "Z", "a", "ab", "", "A", "e\u{301}x"]
        let value = JSONValue.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.null) }))
        let expected = ["", "A", "Z", "a", "ab", "e\u{301}x", "z", "é", "\u{FFFF}", "\u{10000}"]
        let text = "{" + expected.map { "\"\($0)\":null" }.joined(separator: ",") + "}"
        #expect(jsonText(value) == text)
    }

    @Test("unsorted output still parses to the same value")
    func unsorted() throws {
        let value: JSONValue = ["k1": 1, "k2": [2, ["k3": 3]], "k4": "four", "k5": .null]
        let text = jsonText(value, sortedKeys: false)
        #expect(try JSONParser.parse(text) == value)
        #expect(try JSONParser.parse(jsonText(value, pretty: true, sortedKeys: false)) == value)
    }

    @Test("writing appends to what the buffer already holds")
    func appends() {
        var buffer = Array("data: ".utf8)
        JSONWriter.write(["a": 1], into: &buffer)
        JSONWriter.appendString("s", into: &buffer)
        JSONWriter.appendInteger(-5, into: &buffer)
        JSONWriter.appendDouble(0.5, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"data: {"a":1}"s"-50.5"#)
    }

    @Test("NaN and infinity inside a document become null")
    func nonFinite() throws {
        let value: JSONValue = [.double(.nan), .double(.infinity)]
        #expect(jsonText(value) == "[null,null]")
    }
}
