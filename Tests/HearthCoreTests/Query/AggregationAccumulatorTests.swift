import Testing

@testable import HearthCore

@Suite struct AggregationAccumulatorTests {
    typealias F = QueryFixture

    static func accumulate(_ kind: AggregationQuery.Kind, _ values: [Value?]) -> Value? {
        var accumulator = AggregationAccumulator([AggregationQuery.Aggregation(alias: "r", kind: kind)])
        for value in values {
            var fields: [String: Value] = ["other": .integer(1)]
            fields["x"] = value
            accumulator.add(fields: fields)
        }
        return accumulator.results["r"]
    }

    static let sums: [(String, [Value?], Value)] = [
        ("nothing", [], .integer(0)),
        ("only non-numbers", [.string("1"), .null, .boolean(true), nil, .array([.integer(1)])], .integer(0)),
        ("integers", [.integer(1), .integer(2), .integer(3)], .integer(6)),
        ("negative integers", [.integer(-4), .integer(1)], .integer(-3)),
        ("an integer and a double", [.integer(1), .double(2.5)], .double(3.5)),
        ("a whole double", [.double(1)], .double(1)),
        ("numbers among other values", [.string("a"), .null, .integer(2), nil, .boolean(true)], .integer(2)),
        ("overflow to double", [.integer(.max), .integer(1)], .double(9_223_372_036_854_775_808.0)),
        ("negative overflow to double", [.integer(.min), .integer(-1)], .double(-9_223_372_036_854_775_809.0)),
        ("transient overflow stays exact", [.integer(.max), .integer(1), .integer(-1)], .integer(.max)),
        ("Int64.min exactly", [.integer(.min + 1), .integer(-1)], .integer(.min)),
        ("NaN propagates", [.integer(1), .double(.nan), .integer(2)], .double(.nan)),
        ("infinity", [.double(.infinity), .integer(1)], .double(.infinity)),
        ("infinities cancel to NaN", [.double(.infinity), .double(-.infinity)], .double(.nan)),
        ("negative zero", [.double(-0.0)], .double(-0.0)),
        ("fractions", [.double(0.25), .double(0.5)], .double(0.75)),
        // Issue #17: production sums exactly, so an intermediate overflow does not end in infinity.
        (
            "MAX, MAX, -MAX, -MAX",
            [
                .double(.greatestFiniteMagnitude), .double(.greatestFiniteMagnitude),
                .double(-.greatestFiniteMagnitude), .double(-.greatestFiniteMagnitude),
            ], .double(0)
        ),
        (
            "MAX, MAX, -MAX",
            [
                .double(.greatestFiniteMagnitude), .double(.greatestFiniteMagnitude),
                .double(-.greatestFiniteMagnitude),
            ], .double(.greatestFiniteMagnitude)
        ),
        (
            "MAX, MAX overflows", [.double(.greatestFiniteMagnitude), .double(.greatestFiniteMagnitude)],
            .double(.infinity)
        ),
        (
            "1e308 * 3 - 1e308 * 2",
            [.double(1e308), .double(1e308), .double(1e308), .double(-1e308), .double(-1e308)],
            .double(1e308)
        ),
        ("0.1 + 0.2, rounded once", [.double(0.1), .double(0.2)], .double(0.30000000000000004)),
        ("1e16 + 1 + 1, exactly", [.double(1e16), .double(1), .double(1)], .double(10_000_000_000_000_002)),
        (
            "subnormals", [.double(.leastNonzeroMagnitude), .double(.leastNonzeroMagnitude)],
            .double(.leastNonzeroMagnitude * 2)
        ),
        ("2^53 + 1 + 0.5 mixed", [.integer(9_007_199_254_740_993), .double(0.5)], .double(9_007_199_254_740_994)),
    ]

    @Test(arguments: sums)
    func sum(_ row: (String, [Value?], Value)) {
        let result = Self.accumulate(.sum(F.field("x")), row.1)
        #expect(sameValue(result, row.2), "\(row.0): got \(String(describing: result))")
    }

    static let averages: [(String, [Value?], Value)] = [
        ("nothing", [], .null),
        ("only non-numbers", [.string("1"), .null, nil], .null),
        ("integers", [.integer(1), .integer(2)], .double(1.5)),
        ("a single integer", [.integer(4)], .double(4)),
        ("mixed", [.integer(1), .double(2), .integer(3), .string("x")], .double(2)),
        ("NaN propagates", [.double(.nan), .integer(1)], .double(.nan)),
        ("infinity", [.double(-.infinity), .integer(1)], .double(-.infinity)),
        ("large integers do not overflow", [.integer(.max), .integer(.max)], .double(9_223_372_036_854_775_807.0)),
    ]

    @Test(arguments: averages)
    func average(_ row: (String, [Value?], Value)) {
        let result = Self.accumulate(.average(F.field("x")), row.1)
        #expect(sameValue(result, row.2), "\(row.0): got \(String(describing: result))")
    }

    @Test(arguments: [(0, nil, 0), (3, nil, 3), (3, 2, 2), (2, 2, 2), (1, 5, 1)] as [(Int, Int64?, Int64)])
    func count(_ documents: Int, _ upTo: Int64?, _ expected: Int64) {
        let result = Self.accumulate(.count(upTo: upTo), Array(repeating: nil, count: documents))
        #expect(result == .integer(expected))
    }

    @Test func severalAggregationsAndNestedFields() {
        var accumulator = AggregationAccumulator([
            .init(alias: "n", kind: .count(upTo: nil)), .init(alias: "total", kind: .sum(F.field("p.q"))),
            .init(alias: "mean", kind: .average(F.field("p.q"))),
        ])
        accumulator.add(fields: ["p": .map(["q": .integer(2)])])
        accumulator.add(fields: ["p": .integer(7)])
        accumulator.add(fields: ["p": .map(["q": .integer(4)])])
        #expect(accumulator.results == ["n": .integer(3), "total": .integer(6), "mean": .double(3)])
    }

    @Test func saturatesOnlyWhenEveryCountReachedItsBound() {
        var counts = AggregationAccumulator([
            .init(alias: "a", kind: .count(upTo: 2)), .init(alias: "b", kind: .count(upTo: 1)),
        ])
        #expect(!counts.isSaturated)
        counts.add(fields: [:])
        #expect(!counts.isSaturated)
        counts.add(fields: [:])
        #expect(counts.isSaturated)
        var unbounded = AggregationAccumulator([.init(alias: "a", kind: .count(upTo: nil))])
        unbounded.add(fields: [:])
        #expect(!unbounded.isSaturated)
        var sum = AggregationAccumulator([
            .init(alias: "a", kind: .count(upTo: 1)), .init(alias: "s", kind: .sum(F.field("x"))),
        ])
        sum.add(fields: [:])
        #expect(!sum.isSaturated)
    }
}

@Suite struct AggregationQueryTests {
    typealias F = QueryFixture
    static let structuredQuery = #""structuredQuery":{"from":[{"collectionId":"c"}]}"#

    static func body(_ aggregations: String) -> String { #"{\#(structuredQuery),"aggregations":[\#(aggregations)]}"# }

    @Test func decodesEveryKindWithDefaultAliases() throws {
        let query = try F.decodeAggregation(
            Self.body(
                #"{"alias":"total","sum":{"field":{"fieldPath":"price"}}},{"count":{}},{"count":{"upTo":"10"}},{"avg":{"field":{"fieldPath":"a.b"}}},{"alias":"field_2","count":{"upTo":{"value":3}}}"#
            ))
        #expect(query.query == StructuredQuery(parent: .root, collectionID: "c"))
        let expected: [AggregationQuery.Aggregation] = [
            .init(alias: "total", kind: .sum(F.field("price"))), .init(alias: "field_1", kind: .count(upTo: nil)),
            .init(alias: "field_3", kind: .count(upTo: 10)), .init(alias: "field_4", kind: .average(F.field("a.b"))),
            .init(alias: "field_2", kind: .count(upTo: 3)),
        ]
        #expect(query.aggregations == expected)
    }

    @Test func decodesUnderADocument() throws {
        let query = try F.decodeAggregation(
            #"{"structuredQuery":{"from":[{"collectionId":"c"}],"where":{"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"x"}}}},"aggregations":[{"count":{"upTo":5}}]}"#,
            parent: "p/1")
        #expect(query.query.parent == F.path("p/1") && query.query.filter == .unary(F.field("x"), .isNull))
        #expect(query.aggregations == [.init(alias: "field_1", kind: .count(upTo: 5))])
    }

    static let invalid: [(String, String, String)] = [
        ("no structured query", #"{"aggregations":[{"count":{}}]}"#, "structuredQuery is required"),
        ("no aggregations", #"{\#(structuredQuery)}"#, "needs 1 to 5 aggregations, got 0"),
        (
            "six aggregations", body(Array(repeating: #"{"count":{}}"#, count: 6).joined(separator: ",")),
            "needs 1 to 5 aggregations, got 6"
        ),
        (
            "duplicate alias", body(#"{"alias":"n","count":{}},{"alias":"n","sum":{"field":{"fieldPath":"x"}}}"#),
            #"the alias "n" is used twice"#
        ),
        (
            "unknown member", body(#"{"count":{},"extra":1}"#),
            #"Unknown name "extra" at 'structuredAggregationQuery.aggregations[0]'"#
        ),
        ("unknown top member", #"{\#(structuredQuery),"aggregations":[{"count":{}}],"x":1}"#, #"Unknown name "x""#),
        ("unknown count member", body(#"{"count":{"max":1}}"#), #"Unknown name "max""#),
        (
            "two kinds", body(#"{"count":{},"avg":{"field":{"fieldPath":"x"}}}"#),
            "exactly one of count, sum or avg; found count, avg"
        ),
        ("no kind", body(#"{"alias":"a"}"#), "found none"),
        ("zero upTo", body(#"{"count":{"upTo":0}}"#), "upTo must be greater than zero, got 0"),
        ("negative upTo", body(#"{"count":{"upTo":"-3"}}"#), "upTo must be greater than zero"),
        ("sum without field", body(#"{"sum":{}}"#), "sum needs field"),
        ("avg of __name__", body(#"{"avg":{"field":{"fieldPath":"__name__"}}}"#), "not __name__"),
        ("reserved alias", body(#"{"alias":"__x__","count":{}}"#), "reserved"),
        ("bad field path", body(#"{"sum":{"field":{"fieldPath":"a..b"}}}"#), "empty segment"),
        (
            "bad inner query", #"{"structuredQuery":{"from":[]},"aggregations":[{"count":{}}]}"#,
            "'structuredAggregationQuery.structuredQuery.from'"
        ),
    ]

    @Test(arguments: invalid)
    func rejects(_ row: (String, String, String)) {
        do {
            _ = try F.decodeAggregation(row.1)
            Issue.record("\(row.0) decoded")
        } catch let error as HearthError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(row.2), "\(row.0): \(error.message)")
        } catch {
            Issue.record("\(row.0): \(error)")
        }
    }
}
