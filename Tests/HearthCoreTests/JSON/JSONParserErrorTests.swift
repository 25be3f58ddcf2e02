import HearthCore
import Testing

/// One rejected input and exactly where and why it must be rejected.
struct JSONErrorCase: Sendable, CustomTestStringConvertible {
    let input: [UInt8]
    let offset: Int
    let line: Int
    let column: Int
    let reason: String

    init(_ input: String, _ offset: Int, _ line: Int, _ column: Int, _ reason: String) {
        self.init(bytes: Array(input.utf8), offset, line, column, reason)
    }

    init(bytes: [UInt8], _ offset: Int, _ line: Int, _ column: Int, _ reason: String) {
        self.input = bytes
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    var testDescription: String { String(decoding: input, as: UTF8.self).debugDescription }
}

@Suite("JSONParser rejects invalid input precisely")
struct JSONParserErrorTests {
    static let structure: [JSONErrorCase] = [
        .init("", 0, 1, 1, "Unexpected end of input"),
        .init("   ", 3, 1, 4, "Unexpected end of input"),
        .init("x", 0, 1, 1, "Unexpected character 'x'"),
        .init("[1, 2, x]", 7, 1, 8, "Unexpected character 'x'"),
        .init("[1,]", 3, 1, 4, "Unexpected character ']'"),
        .init(#"{"a":1,}"#, 7, 1, 8, "Unexpected character '}'"),
        .init("[,1]", 1, 1, 2, "Unexpected character ','"),
        .init("[1 2]", 3, 1, 4, "Unexpected character '2'"),
        .init(#"{"a" 1}"#, 5, 1, 6, "Unexpected character '1'"),
        .init(#"{"a":1 "b":2}"#, 7, 1, 8, "Unexpected character '\"'"),
        .init("{a:1}", 1, 1, 2, "Unexpected character 'a'"),
        .init("{'a':1}", 1, 1, 2, "Unexpected character '''"),
        .init(#"{"a":}"#, 5, 1, 6, "Unexpected character '}'"),
        .init("{1:2}", 1, 1, 2, "Unexpected character '1'"),
        .init("[1}", 2, 1, 3, "Unexpected character '}'"),
        .init(#"{"a":1]"#, 6, 1, 7, "Unexpected character ']'"),
        .init("]", 0, 1, 1, "Unexpected character ']'"),
        .init("[", 1, 1, 2, "Unexpected end of input"),
        .init("[1", 2, 1, 3, "Unexpected end of input"),
        .init("[1,", 3, 1, 4, "Unexpected end of input"),
        .init("{", 1, 1, 2, "Unexpected end of input"),
        .init(#"{"a""#, 4, 1, 5, "Unexpected end of input"),
        .init(#"{"a":"#, 5, 1, 6, "Unexpected end of input"),
        .init(#"{"a":1"#, 6, 1, 7, "Unexpected end of input"),
        .init("1 2", 2, 1, 3, "Trailing characters after the JSON value"),
        .init("{} x", 3, 1, 4, "Trailing characters after the JSON value"),
        .init("[1,2]\n[3]", 6, 2, 1, "Trailing characters after the JSON value"),
        .init("nullx", 4, 1, 5, "Trailing characters after the JSON value"),
        .init("// c\n1", 0, 1, 1, "Unexpected character '/'"),
        .init("/* c */ 1", 0, 1, 1, "Unexpected character '/'"),
        .init("[1] // c", 4, 1, 5, "Trailing characters after the JSON value"),
        .init("tru", 3, 1, 4, "Unexpected end of input"),
        .init("trux", 3, 1, 4, "Unexpected character 'x'"),
        .init("nul", 3, 1, 4, "Unexpected end of input"),
        .init("fals e", 4, 1, 5, "Unexpected character ' '"),
        .init("True", 0, 1, 1, "Unexpected character 'T'"),
        .init("None", 0, 1, 1, "Unexpected character 'N'"),
        .init("undefined", 0, 1, 1, "Unexpected character 'u'"),
        .init("\u{0}", 0, 1, 1, "Unexpected character U+0000"),
        .init("\u{B}1", 0, 1, 1, "Unexpected character U+000B"),
        .init("\u{A0}1", 0, 1, 1, "Unexpected character U+00A0"),
        .init("é", 0, 1, 1, "Unexpected character U+00E9"),
        .init("\u{FEFF}\u{FEFF}1", 3, 1, 1, "Unexpected character U+FEFF"),
        .init("\u{FEFF}x", 3, 1, 1, "Unexpected character 'x'"),
        .init(bytes: [0xFF], 0, 1, 1, "Unexpected byte 0xFF"),
        .init(bytes: [0x5B, 0xC3], 1, 1, 2, "Unexpected byte 0xC3"),
    ]

    static let numbers: [JSONErrorCase] = [
        .init("01", 0, 1, 1, "Leading zeros are not allowed"),
        .init("-01", 1, 1, 2, "Leading zeros are not allowed"),
        .init("[00]", 1, 1, 2, "Leading zeros are not allowed"),
        .init("1.", 2, 1, 3, "Unexpected end of input"),
        .init("1.e3", 2, 1, 3, "Expected a digit after '.'"),
        .init("[1.]", 3, 1, 4, "Expected a digit after '.'"),
        .init("1e", 2, 1, 3, "Unexpected end of input"),
        .init("1e+", 3, 1, 4, "Unexpected end of input"),
        .init("1ex", 2, 1, 3, "Expected a digit after the exponent marker"),
        .init("1e-x", 3, 1, 4, "Expected a digit after the exponent marker"),
        .init("-", 1, 1, 2, "Unexpected end of input"),
        .init("-a", 1, 1, 2, "Expected a digit after '-'"),
        .init("--1", 1, 1, 2, "Expected a digit after '-'"),
        .init("+1", 0, 1, 1, "Unexpected character '+'"),
        .init(".5", 0, 1, 1, "Unexpected character '.'"),
        .init("NaN", 0, 1, 1, "Unexpected character 'N'"),
        .init("Infinity", 0, 1, 1, "Unexpected character 'I'"),
        .init("-Infinity", 1, 1, 2, "Expected a digit after '-'"),
        .init("0x10", 1, 1, 2, "Trailing characters after the JSON value"),
        .init("1.5.2", 3, 1, 4, "Trailing characters after the JSON value"),
        .init("1e400", 0, 1, 1, "Number out of range"),
        .init("[-1.5e99999]", 1, 1, 2, "Number out of range"),
        // Exactly halfway between the largest double and 2^1024: ties-to-even rounds up, out of range.
        .init(JSONNumberTests.halfwayAboveMaximum, 0, 1, 1, "Number out of range"),
    ]

    static let strings: [JSONErrorCase] = [
        .init(#""abc"#, 0, 1, 1, "Unterminated string"),
        .init(#"["abc"#, 1, 1, 2, "Unterminated string"),
        .init(#""abc\"#, 0, 1, 1, "Unterminated string"),
        .init(#""a\"bc"#, 0, 1, 1, "Unterminated string"),
        .init(#""0123456789abcdefghij"#, 0, 1, 1, "Unterminated string"),
        .init("\"a\nb\"", 2, 1, 3, "Unescaped control character U+000A in string"),
        .init("\"\t\"", 1, 1, 2, "Unescaped control character U+0009 in string"),
        .init("\"\u{0}\"", 1, 1, 2, "Unescaped control character U+0000 in string"),
        .init("\"0123456789abcdef\u{1F}\"", 17, 1, 18, "Unescaped control character U+001F in string"),
        .init("\"\\n0123456789abcdef\u{1}\"", 19, 1, 20, "Unescaped control character U+0001 in string"),
        .init(#""\x""#, 1, 1, 2, #"Invalid escape '\x'"#),
        .init(#""\'""#, 1, 1, 2, #"Invalid escape '\''"#),
        .init(#""\U0041""#, 1, 1, 2, #"Invalid escape '\U'"#),
        .init("\"\\\u{1}\"", 1, 1, 2, #"Invalid escape: '\' followed by character U+0001"#),
        .init(#""\u12G4""#, 1, 1, 2, #"Invalid \u escape"#),
        .init(#""\u12""#, 1, 1, 2, #"Invalid \u escape"#),
        .init(#""\u"#, 1, 1, 2, #"Invalid \u escape"#),
        .init(#""\uD83D""#, 1, 1, 2, #"Unpaired surrogate \uD83D in string"#),
        .init(#""\uDE00""#, 1, 1, 2, #"Unpaired surrogate \uDE00 in string"#),
        .init(#""x\udfff""#, 2, 1, 3, #"Unpaired surrogate \uDFFF in string"#),
        .init(#""\uD83D\u0041""#, 1, 1, 2, #"Unpaired surrogate \uD83D in string"#),
        .init(#""\uD83D\uD83D""#, 1, 1, 2, #"Unpaired surrogate \uD83D in string"#),
        .init(#""\uD83Dx""#, 1, 1, 2, #"Unpaired surrogate \uD83D in string"#),
        .init(#""\uD83D\n""#, 1, 1, 2, #"Unpaired surrogate \uD83D in string"#),
        .init(#""\uD83D\uZZZZ""#, 7, 1, 8, #"Invalid \u escape"#),
    ]

    static let invalidUTF8: [JSONErrorCase] = [
        .init(bytes: [0x22, 0xFF, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0x80, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0x61, 0xC3, 0x22], 2, 1, 3, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xC0, 0xAF, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xC1, 0xBF, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xE6, 0x97, 0x22], 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xC3, 0xA9, 0xE6, 0x97, 0xA5, 0xFE, 0x22], 6, 1, 4, "Invalid UTF-8 in string"),
        .init(bytes: Array(#""\n"#.utf8) + [0xFF, 0x22], 3, 1, 4, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xC3] + Array(#"\u00A9""#.utf8), 1, 1, 2, "Invalid UTF-8 in string"),
        .init(bytes: [0x22] + Array(repeating: 0x61, count: 20) + [0xFF, 0x22], 21, 1, 22, "Invalid UTF-8 in string"),
        .init(bytes: [0x22, 0xE6, 0x97], 0, 1, 1, "Unterminated string"),
    ]

    static let locations: [JSONErrorCase] = [
        .init("{\n  \"a\": tru\n}", 12, 2, 11, "Unexpected character U+000A"),
        .init("[\r\n1,\r\n]", 7, 3, 1, "Unexpected character ']'"),
        .init("[\r,]", 2, 2, 1, "Unexpected character ','"),
        .init("[\n\n\n  x]", 6, 4, 3, "Unexpected character 'x'"),
        .init("[\"é\", x]", 7, 1, 7, "Unexpected character 'x'"),
        .init("[\"😀日本\", x]", 15, 1, 9, "Unexpected character 'x'"),
        .init("\u{FEFF}[1,]", 6, 1, 4, "Unexpected character ']'"),
    ]

    @Test("structural errors", arguments: structure)
    func structural(_ errorCase: JSONErrorCase) { check(errorCase) }

    @Test("number errors", arguments: numbers)
    func number(_ errorCase: JSONErrorCase) { check(errorCase) }

    @Test("string and escape errors", arguments: strings)
    func string(_ errorCase: JSONErrorCase) { check(errorCase) }

    @Test("ill-formed UTF-8 in strings", arguments: invalidUTF8)
    func utf8(_ errorCase: JSONErrorCase) { check(errorCase) }

    @Test("line and column", arguments: locations)
    func location(_ errorCase: JSONErrorCase) { check(errorCase) }

    func check(_ errorCase: JSONErrorCase) {
        let error = jsonParseError(errorCase.input)
        #expect(
            error
                == JSONError(
                    offset: errorCase.offset, line: errorCase.line, column: errorCase.column, reason: errorCase.reason))
    }

    @Test("description names line, column and reason")
    func description() throws {
        let error = try #require(jsonParseError(Array("[1, 2, x]".utf8)))
        #expect(error.description == "Invalid JSON at line 1, column 8: Unexpected character 'x'")
    }

    @Test("errors quote at most a short prefix of the input")
    func redaction() throws {
        let secret = String(repeating: "s3cr3t", count: 50)
        let error = try #require(jsonParseError(Array(#"{"\#(secret)":1,"\#(secret)":2}"#.utf8)))
        #expect(error.reason == #"Duplicate key "s3cr3ts3cr3ts3cr3ts3…""#)
        #expect(!error.description.contains(String(repeating: "s3cr3t", count: 4)))
    }

    @Test("the String entry point reports the same error as the byte entry point")
    func stringEntryPoint() {
        let text = "{\"a\": [1, 2,, 3]}"
        #expect(throws: jsonParseError(Array(text.utf8))!) { try JSONParser.parse(text) }
    }
}
