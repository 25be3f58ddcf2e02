import HearthCore
import Testing

@Suite("JSONParser accepts every valid form")
struct JSONParserValidTests {
    static let cases: [(String, JSONValue)] = [
        ("null", .null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .integer(0)),
        ("-0", .double(-0.0)),
        ("7", .integer(7)),
        ("-12", .integer(-12)),
        ("1.5", .double(1.5)),
        ("-1.5", .double(-1.5)),
        ("0.25", .double(0.25)),
        ("1e3", .double(1000)),
        ("1E3", .double(1000)),
        ("1e+3", .double(1000)),
        ("1e-3", .double(0.001)),
        ("2.5E-1", .double(0.25)),
        ("0e0", .double(0)),
        ("10.0", .double(10)),
        (#""""#, .string("")),
        (#""abc""#, .string("abc")),
        (#""a b\tc""#, .string("a b\tc")),
        ("[]", .array([])),
        ("{}", .object([:])),
        ("[1,2,3]", [1, 2, 3]),
        ("[null,true,false]", [.null, true, false]),
        (#"{"a":1}"#, ["a": 1]),
        (#"{"a":{"b":[{"c":null}]}}"#, ["a": ["b": [["c": .null]]]]),
        (#"[[],{},[[]],{"":{}}]"#, [[], [:], [[]], ["": [:]]]),
        (#"{"x":1,"y":"two","z":[3.5,false]}"#, ["x": 1, "y": "two", "z": [3.5, false]]),
        (" \t\r\n[ 1 , { \"a\" : [ ] } ] \n", [1, ["a": []]]),
        (" 42 ", 42),
        ("\n\"top\"\n", "top"),
        ("\u{FEFF}{\"bom\":true}", ["bom": true]),
        ("\u{FEFF} 1", 1),
    ]

    @Test("valid document", arguments: cases)
    func parses(input: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(input) == expected)
        #expect(try JSONParser.parse(Array(input.utf8)) == expected)
        let viaRaw = try Array(input.utf8).withUnsafeBytes { raw in try JSONParser.parse(raw) }
        #expect(viaRaw == expected)
    }

    @Test("integers and doubles stay distinct")
    func numberKinds() throws {
        #expect(try JSONParser.parse("1") == .integer(1))
        #expect(try JSONParser.parse("1.0") == .double(1))
        #expect(try JSONParser.parse("1e0") == .double(1))
        #expect(try JSONParser.parse("1") != JSONParser.parse("1.0"))
    }

    @Test("an empty raw buffer is an error, not a crash")
    func emptyRawBuffer() {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        let error = #expect(throws: JSONError.self) { try JSONParser.parse(empty) }
        #expect(error?.reason == "Unexpected end of input")
        #expect(error?.offset == 0)
    }

    @Test("a large array keeps every element in order")
    func largeArray() throws {
        let count = 100_000
        let text = "[" + (0..<count).map(String.init).joined(separator: ",") + "]"
        let elements = try #require(try JSONParser.parse(text).arrayValue)
        #expect(elements.count == count)
        #expect(elements.enumerated().allSatisfy { $1 == .integer(Int64($0)) })
    }

    @Test("a large object keeps every member")
    func largeObject() throws {
        let count = 10_000
        let text = "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let members = try #require(try JSONParser.parse(text).objectValue)
        #expect(members.count == count)
        #expect(members["k0"] == 0 && members["k9999"] == 9999)
    }

    @Test("a long string survives intact")
    func longString() throws {
        let long = String(repeating: "abcdefghij😀", count: 100_000)
        #expect(try JSONParser.parse("\"\(long)\"") == .string(long))
    }
}
