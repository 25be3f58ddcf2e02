import Testing

@testable import HearthCore

/// A document value (nil = field missing) against one operand, with the expected outcome of
/// `<`, `<=`, `>`, `>=`, `==`, `!=` written as six letters (T/F), in that order.
struct ComparisonRow: Sendable, CustomTestStringConvertible {
    let operand: Value
    let value: Value?
    let outcomes: String
    let note: String

    init(_ operand: Value, _ value: Value?, _ outcomes: String, _ note: String) {
        self.operand = operand
        self.value = value
        self.outcomes = outcomes
        self.note = note
    }

    var testDescription: String { "field \(note) vs \(operand)" }
}

@Suite struct QueryMatcherComparisonTests {
    typealias F = QueryFixture
    static let operators: [FieldOperator] = [
        .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .equal, .notEqual,
    ]
    static let time = Timestamp(seconds: 1_700_000_000, nanos: 0)

    static let rows: [ComparisonRow] = [
        // Operand: the integer 2, against every type.
        .init(.integer(2), nil, "FFFFFF", "missing"),
        .init(.integer(2), .null, "FFFFFF", "null"),
        .init(.integer(2), .boolean(false), "FFFFFT", "false"),
        .init(.integer(2), .integer(1), "TTFFFT", "1"),
        .init(.integer(2), .integer(2), "FTFTTF", "2"),
        .init(.integer(2), .double(2.0), "FTFTTF", "2.0"),
        .init(.integer(2), .double(2.5), "FFTTFT", "2.5"),
        .init(.integer(2), .double(1.999), "TTFFFT", "1.999"),
        .init(.integer(2), .double(.nan), "FFFFFT", "NaN (never in a range, production)"),
        .init(.integer(2), .double(-.infinity), "TTFFFT", "-inf"),
        .init(.integer(2), .double(.infinity), "FFTTFT", "+inf"),
        .init(.integer(2), .double(-0.0), "TTFFFT", "-0.0"),
        .init(.integer(2), .integer(.max), "FFTTFT", "Int64.max"),
        .init(.integer(2), .string("2"), "FFFFFT", "\"2\""),
        .init(.integer(2), .bytes([2]), "FFFFFT", "bytes"),
        .init(.integer(2), .timestamp(time), "FFFFFT", "timestamp"),
        .init(.integer(2), F.ref("c/d"), "FFFFFT", "reference"),
        .init(.integer(2), .geoPoint(latitude: 2, longitude: 2), "FFFFFT", "geo point"),
        .init(.integer(2), .array([.integer(2)]), "FFFFFT", "[2]"),
        .init(.integer(2), .map(["a": .integer(2)]), "FFFFFT", "{a: 2}"),
        // Operand: a double, against integers at the edge of exactness.
        .init(.double(9_007_199_254_740_992), .integer(9_007_199_254_740_993), "FFTTFT", "2^53 + 1 > 2^53 as double"),
        .init(.double(0.5), .integer(0), "TTFFFT", "0 < 0.5"),
        .init(.double(-0.0), .double(0.0), "FTFTTF", "0.0 == -0.0"),
        .init(.double(-0.0), .integer(0), "FTFTTF", "0 == -0.0"),
        // Operand: NaN.
        .init(.double(.nan), .double(.nan), "FFFFTF", "NaN equals NaN, but no range holds it"),
        .init(.double(.nan), .integer(1), "FFFFFT", "a NaN operand bounds no range"),
        .init(.double(.nan), .double(-.infinity), "FFFFFT", "-inf: a NaN operand bounds no range"),
        .init(.double(.nan), .string("NaN"), "FFFFFT", "\"NaN\""),
        .init(.double(.nan), .null, "FFFFFF", "null"),
        .init(.double(.nan), nil, "FFFFFF", "missing"),
        // Operand: null.
        .init(.null, .null, "FFFFTF", "null equals null, but no range holds it"),
        .init(.null, .integer(0), "FFFFFT", "0"),
        .init(.null, .boolean(false), "FFFFFT", "false"),
        .init(.null, nil, "FFFFFF", "missing"),
        // Operand: booleans.
        .init(.boolean(true), .boolean(false), "TTFFFT", "false < true"),
        .init(.boolean(true), .boolean(true), "FTFTTF", "true"),
        .init(.boolean(false), .integer(0), "FFFFFT", "0 is not false"),
        // Operand: strings, compared by UTF-8 bytes.
        .init(.string("b"), .string("a"), "TTFFFT", "\"a\""),
        .init(.string("b"), .string("b"), "FTFTTF", "\"b\""),
        .init(.string("b"), .string("ba"), "FFTTFT", "\"ba\""),
        .init(.string("b"), .string("B"), "TTFFFT", "\"B\" (uppercase sorts first)"),
        .init(.string("b"), .string("é"), "FFTTFT", "\"é\""),
        .init(.string("b"), .string(""), "TTFFFT", "\"\""),
        .init(.string("\u{FFFD}"), .string("😀"), "FFTTFT", "U+1F600 > U+FFFD in UTF-8"),
        .init(.string("b"), .integer(1), "FFFFFT", "a number"),
        .init(.string("b"), .bytes(Array("b".utf8)), "FFFFFT", "bytes of the same text"),
        // Operand: timestamps.
        .init(
            .timestamp(time), .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 1000)), "FFTTFT",
            "a microsecond later"),
        .init(.timestamp(time), .timestamp(time), "FTFTTF", "the same time"),
        .init(.timestamp(time), .integer(1_700_000_000), "FFFFFT", "the seconds as a number"),
        // Operand: bytes.
        .init(.bytes([1, 0]), .bytes([1]), "TTFFFT", "a prefix"),
        .init(.bytes([1, 0]), .bytes([2]), "FFTTFT", "a larger first byte"),
        .init(.bytes([1, 0]), .bytes([1, 0]), "FTFTTF", "equal bytes"),
        // Operand: references, compared segment by segment.
        .init(F.ref("c/b"), F.ref("c/a"), "TTFFFT", "c/a"),
        .init(F.ref("c/b"), F.ref("c/b/x/y"), "FFTTFT", "a child"),
        .init(F.ref("a/b"), F.ref("a-c/x"), "FFTTFT", "a-c/x: the segment \"a-c\" sorts after \"a\""),
        .init(
            F.ref("c/b"), .string("projects/demo/databases/(default)/documents/c/b"), "FFFFFT", "the name as a string"),
        // Operand: geo points, by latitude then longitude.
        .init(.geoPoint(latitude: 1, longitude: 2), .geoPoint(latitude: 1, longitude: 3), "FFTTFT", "(1, 3)"),
        .init(.geoPoint(latitude: 1, longitude: 2), .geoPoint(latitude: 0, longitude: 100), "TTFFFT", "(0, 100)"),
        .init(.geoPoint(latitude: 1, longitude: 2), .geoPoint(latitude: 1, longitude: 2), "FTFTTF", "(1, 2)"),
        // Operand: arrays, element by element then by length.
        .init(.array([.integer(1), .integer(2)]), .array([.integer(1)]), "TTFFFT", "[1]"),
        .init(.array([.integer(1), .integer(2)]), .array([]), "TTFFFT", "[]"),
        .init(.array([.integer(1), .integer(2)]), .array([.double(1), .double(2)]), "FTFTTF", "[1.0, 2.0]"),
        .init(.array([.integer(1), .integer(2)]), .array([.integer(2), .integer(1)]), "FFTTFT", "[2, 1]"),
        .init(
            .array([.integer(1), .integer(2)]), .array([.integer(1), .integer(2), .null]), "FFTTFT", "[1, 2, null]"),
        .init(.array([.integer(1), .integer(2)]), .integer(1), "FFFFFT", "1"),
        // Operand: maps, key by key in byte order.
        .init(.map(["a": .integer(1)]), .map(["a": .integer(0)]), "TTFFFT", "{a: 0}"),
        .init(.map(["a": .integer(1)]), .map(["a": .double(1)]), "FTFTTF", "{a: 1.0}"),
        .init(.map(["a": .integer(1)]), .map(["a": .integer(1), "b": .null]), "FFTTFT", "{a: 1, b: null}"),
        .init(.map(["a": .integer(1)]), .map(["b": .integer(0)]), "FFTTFT", "{b: 0}"),
        .init(.map(["a": .integer(1)]), .map([:]), "TTFFFT", "{}"),
        .init(
            .map(["a": .integer(1), "c": .double(.nan)]), .map(["c": .double(.nan), "a": .integer(1)]), "FTFTTF",
            "same map, NaN inside"),
    ]

    @Test(arguments: rows)
    func comparisons(_ row: ComparisonRow) {
        var fields: [String: Value] = ["other": .integer(2)]
        if let value = row.value { fields["f"] = value }
        for (op, expected) in zip(Self.operators, row.outcomes) {
            let filter = QueryFilter.field(F.field("f"), op, row.operand)
            #expect(
                QueryMatcher.passes(filter, path: F.path("c/d"), fields: fields) == (expected == "T"), "\(op.rawValue)")
        }
    }

    @Test func comparesNestedFieldsByPath() {
        let equalsOne = F.filter("a.b", .equal, .integer(1))
        let path = F.path("c/d")
        #expect(QueryMatcher.passes(equalsOne, path: path, fields: ["a": .map(["b": .integer(1)])]))
        #expect(!QueryMatcher.passes(equalsOne, path: path, fields: ["a": .integer(1)]))
        #expect(!QueryMatcher.passes(equalsOne, path: path, fields: ["a.b": .integer(1)]))
        let quoted = QueryFilter.field(FieldPath(segments: ["a.b"]), .equal, .integer(1))
        #expect(QueryMatcher.passes(quoted, path: path, fields: ["a.b": .integer(1)]))
        #expect(!QueryMatcher.passes(quoted, path: path, fields: ["a": .map(["b": .integer(1)])]))
    }
}
