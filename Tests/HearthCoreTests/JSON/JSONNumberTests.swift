import HearthCore
import Testing

@Suite("JSON numbers")
struct JSONNumberTests {
    /// (2^1024 + the largest double) / 2: round-half-to-even takes it, and everything above it, to infinity.
    static let halfwayAboveMaximum = [
        "1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179775872070",
        "9633028641669288791094655554785194040263065748867150582068190890200070838367627385484581771153176447",
        "5730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904",
        "174497792",
    ].joined()

    static let integers: [(String, Int64)] = [
        ("0", 0),
        ("1", 1),
        ("-1", -1),
        ("1234567890123456789", 1_234_567_890_123_456_789),
        ("9007199254740993", 9_007_199_254_740_993),
        ("9223372036854775807", .max),
        ("-9223372036854775808", .min),
        ("-9223372036854775807", .min + 1),
    ]

    @Test("integers that fit Int64 are exact", arguments: integers)
    func integer(text: String, expected: Int64) throws {
        #expect(try JSONParser.parse(text) == .integer(expected))
    }

    static let beyondInt64: [(String, Double)] = [
        ("9223372036854775808", 9_223_372_036_854_775_808.0),
        ("-9223372036854775809", -9_223_372_036_854_775_809.0),
        ("18446744073709551616", 18_446_744_073_709_551_616.0),
        ("99999999999999999999", 1e20),
        ("12345678901234567890", 12_345_678_901_234_567_890.0),
        ("100000000000000000000000000000", 1e29),
    ]

    @Test("integers beyond Int64 become doubles", arguments: beyondInt64)
    func beyond(text: String, expected: Double) throws {
        #expect(try JSONParser.parse(text) == .double(expected))
    }

    static let doubles: [(String, Double)] = [
        ("0.1", 0.1),
        ("0.5", 0.5),
        ("-0.0", -0.0),
        ("0.30000000000000004", 0.30000000000000004),
        ("1e-300", 1e-300),
        ("5e-324", .leastNonzeroMagnitude),
        ("4.9406564584124654e-324", .leastNonzeroMagnitude),
        ("2.5e-324", .leastNonzeroMagnitude),
        ("2e-324", 0),
        ("1e-400", 0),
        ("2.2250738585072014e-308", .leastNormalMagnitude),
        ("2.2250738585072011e-308", Double(bitPattern: 0x000F_FFFF_FFFF_FFFF)),
        ("1.7976931348623157e308", .greatestFiniteMagnitude),
        ("1.7976931348623157E+308", .greatestFiniteMagnitude),
        (String(halfwayAboveMaximum.dropLast()) + "1", .greatestFiniteMagnitude),
        ("1e22", 1e22),
        ("1e23", 1e23),
        ("9007199254740993.0", 9_007_199_254_740_992),
        ("9007199254740993.000000001", 9_007_199_254_740_994),
        ("3.141592653589793", 3.141592653589793),
        ("123456789012345678901234567890e-10", 12_345_678_901_234_567_890.123456789),
        ("0.000000000000000000000000000001", 1e-30),
        ("1.00000000000000000000000000000", 1),
        ("6.02214076e23", 6.02214076e23),
        ("-1.5E-7", -1.5e-7),
        ("1e0000000000000000000000000000001", 10),
        ("0e99999999999", 0),
    ]

    @Test("doubles are correctly rounded", arguments: doubles)
    func double(text: String, expected: Double) throws {
        let parsed = try #require(try JSONParser.parse(text).doubleValue)
        #expect(parsed.bitPattern == expected.bitPattern, "\(text) gave \(parsed)")
        #expect(try JSONParser.parse(text).int64Value == nil)
    }

    /// The fast path must agree bit for bit with the standard library's correctly rounded conversion.
    @Test("random decimals agree with Double(String)")
    func randomDecimals() throws {
        var random = JSONTestRandom(state: 0x5EED)
        for _ in 0..<20_000 {
            // 1 to 22 significant digits: both sides of the 19-digit and 2^53 fast-path limits.
            let length = Int.random(in: 1...22, using: &random)
            var digits = String(Int.random(in: 1...9, using: &random))
            for _ in 1..<length { digits += String(Int.random(in: 0...9, using: &random)) }
            let pointAt = Int.random(in: 0...digits.count, using: &random)
            var text = digits
            if pointAt < digits.count {
                text.insert(".", at: text.index(text.startIndex, offsetBy: pointAt))
            }
            if text.hasPrefix(".") { text = "0" + text }
            if Bool.random(using: &random) { text += "e\(Int.random(in: -40...40, using: &random))" }
            if Bool.random(using: &random) { text = "-" + text }
            let parsed = try #require(try JSONParser.parse(text).doubleValue, "\(text)")
            let expected = try #require(Double(text))
            #expect(parsed.bitPattern == expected.bitPattern || (parsed == 0 && expected == 0), "\(text)")
        }
    }

    /// Every finite double written by the writer parses back to the same value.
    @Test("random doubles round-trip through writer and parser")
    func randomDoubles() throws {
        var random = JSONTestRandom(state: 42)
        var checked = 0
        while checked < 20_000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite, value != 0 else { continue }
            checked += 1
            var buffer: [UInt8] = []
            JSONWriter.appendDouble(value, into: &buffer)
            let parsed = try #require(try JSONParser.parse(buffer).doubleValue)
            #expect(parsed.bitPattern == value.bitPattern, "\(value)")
        }
    }
}
