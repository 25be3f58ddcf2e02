import HearthCore
import Testing

@Suite("JSON round trips")
struct JSONRoundTripTests {
    static let documents: [String] = [
        "null", "true", "0", "-9223372036854775808", "9223372036854775807", "0.1", "-2.5e-300", "5e-324",
        "1.7976931348623157e308", "1e16", "123456789012345678901", #""""#, #""\u0000\u001f\"\\/""#,
        #""😀 日本語 é e\u0301 \u2028""#, "[]", "{}", "[[[[]]]]",
        #"{"name":"projects/p/databases/(default)/documents/users/alice","#
            + #""fields":{"age":{"integerValue":"31"},"score":{"doubleValue":0.5},"#
            + #""tags":{"arrayValue":{"values":[{"stringValue":"a"},{"nullValue":null}]}}}}"#,
        #"{"users":{"-Nabc":{"name":"Ada","born":1815,"langs":["en","fr"],"active":true,"ratio":0.25}}}"#,
        #"[{"":{"":[{"":null}]}},-0.5,1e-7,[true,false]]"#,
    ]

    @Test("parse, write, parse gives the same value", arguments: documents)
    func roundTrip(document: String) throws {
        let value = try JSONParser.parse(document)
        #expect(try JSONParser.parse(value.serialized()) == value)
        #expect(try JSONParser.parse(value.serialized(pretty: true)) == value)
        #expect(try JSONParser.parse(jsonText(value, sortedKeys: false)) == value)
    }

    @Test("writing is a fixed point after one round", arguments: documents)
    func fixedPoint(document: String) throws {
        let once = try JSONParser.parse(document).serialized()
        #expect(try JSONParser.parse(once).serialized() == once)
    }

    /// Whole-valued doubles are written like integers (as JavaScript does), so they come back as integers: the number
    /// is kept, its case is not.
    @Test("a whole-valued double comes back as an integer of equal value")
    func wholeDouble() throws {
        let value = try JSONParser.parse("[3.0,1e3,-0.0]")
        #expect(value == [.double(3), .double(1000), .double(-0.0)])
        #expect(value.jsonString == "[3,1000,-0]")
        let again = try JSONParser.parse(value.serialized())
        #expect(again == [3, 1000, .double(-0.0)])
        #expect(again[2]?.doubleValue?.sign == .minus)
    }

    @Test("random documents round-trip")
    func randomDocuments() throws {
        var random = JSONTestRandom(state: 7)
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &random)
            let compact = value.serialized()
            #expect(try JSONParser.parse(compact) == value, "\(String(decoding: compact, as: UTF8.self))")
            #expect(try JSONParser.parse(value.serialized(pretty: true)) == value)
        }
    }

    static func randomValue(depth: Int, using random: inout JSONTestRandom) -> JSONValue {
        let pieces = ["a", "é", "😀", "\"", "\\", "\n", "\u{0}", "日本", "key", " ", "\u{1F}", "/", "\u{2028}"]
        func text() -> String {
            (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        switch Int.random(in: 0...(depth < 5 ? 8 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64(bitPattern: random.next()) >> Int64.random(in: 0...63, using: &random))
        case 3:
            // Whole-valued doubles come back as integers by design, so keep to fractional ones here.
            let double = Double(bitPattern: random.next())
            let fractional = double.isFinite && (double.magnitude >= 1e16 || Double(Int64(double)) != double)
            return .double(fractional ? double : 0.5)
        case 4, 5: return .string(text())
        case 6, 7:
            let count = Int.random(in: 0...5, using: &random)
            return .array((0..<count).map { _ in randomValue(depth: depth + 1, using: &random) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                members[text()] = randomValue(depth: depth + 1, using: &random)
            }
            return .object(members)
        }
    }
}
