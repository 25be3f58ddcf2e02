import Testing

@testable import HearthCore

/// One filter against one document value (nil = field missing).
struct MembershipRow: Sendable, CustomTestStringConvertible {
    let op: FieldOperator
    let operand: Value
    let value: Value?
    let expected: Bool
    let note: String

    init(_ op: FieldOperator, _ operand: Value, _ value: Value?, _ expected: Bool, _ note: String) {
        self.op = op
        self.operand = operand
        self.value = value
        self.expected = expected
        self.note = note
    }

    var testDescription: String { "\(op.rawValue) \(note)" }
}

@Suite struct QueryMatcherMembershipTests {
    typealias F = QueryFixture
    static let oneAndA = Value.array([.integer(1), .string("a")])

    static let rows: [MembershipRow] = [
        // ARRAY_CONTAINS.
        .init(.arrayContains, .integer(2), .array([.integer(1), .integer(2)]), true, "[1, 2] contains 2"),
        .init(.arrayContains, .integer(2), .array([.double(2)]), true, "[2.0] contains 2"),
        .init(.arrayContains, .double(-0.0), .array([.integer(0)]), true, "[0] contains -0.0"),
        .init(.arrayContains, .integer(2), .array([.integer(1)]), false, "[1]"),
        .init(.arrayContains, .integer(2), .array([]), false, "[]"),
        .init(.arrayContains, .integer(2), .integer(2), false, "a non-array 2"),
        .init(.arrayContains, .integer(2), .array([.string("2")]), false, "[\"2\"]"),
        .init(.arrayContains, .integer(2), .array([.map(["a": .integer(2)])]), false, "a nested map holding 2"),
        .init(.arrayContains, .integer(2), .null, false, "null"),
        .init(.arrayContains, .integer(2), nil, false, "missing"),
        .init(
            .arrayContains, .double(.nan), .array([.double(.nan)]), false, "a NaN operand matches nothing (production)"),
        .init(.arrayContains, .null, .array([.null]), false, "a null operand matches nothing (production)"),
        .init(.arrayContains, .null, .array([]), false, "[] does not contain null"),
        .init(
            .arrayContains, .map(["a": .array([.integer(42)])]),
            .array([.integer(1), .map(["a": .array([.integer(42)])])]), true, "an equal map"),
        .init(
            .arrayContains, .map(["a": .array([.integer(42)])]),
            .array([.map(["a": .array([.integer(42)]), "b": .null])]), false, "a larger map"),
        // ARRAY_CONTAINS_ANY.
        .init(.arrayContainsAny, oneAndA, .array([.integer(1)]), true, "[1]"),
        .init(.arrayContainsAny, oneAndA, .array([.double(1)]), true, "[1.0]"),
        .init(.arrayContainsAny, oneAndA, .array([.string("a"), .integer(5)]), true, "[\"a\", 5]"),
        .init(.arrayContainsAny, oneAndA, .array([.integer(2)]), false, "[2]"),
        .init(.arrayContainsAny, oneAndA, .integer(1), false, "a non-array 1"),
        .init(.arrayContainsAny, oneAndA, .array([]), false, "[]"),
        .init(.arrayContainsAny, oneAndA, .array([.null]), false, "[null]"),
        .init(.arrayContainsAny, oneAndA, nil, false, "missing"),
        .init(.arrayContainsAny, .array([.null]), .array([.null]), false, "a null wanted matches nothing (production)"),
        // IN.
        .init(.in, .array([.integer(1), .string("a"), .null]), .integer(1), true, "1"),
        .init(.in, .array([.integer(1), .string("a"), .null]), .double(1), true, "1.0"),
        .init(.in, .array([.integer(1), .string("a"), .null]), .string("a"), true, "\"a\""),
        .init(
            .in, .array([.integer(1), .string("a"), .null]), .null, false,
            "null: a null element matches nothing (production)"),
        .init(.in, .array([.integer(1), .string("a"), .null]), .integer(2), false, "2"),
        .init(.in, .array([.integer(1), .string("a"), .null]), .array([.integer(1)]), false, "[1]"),
        .init(.in, .array([.integer(1), .string("a"), .null]), .double(.nan), false, "NaN"),
        .init(.in, .array([.integer(1), .string("a"), .null]), nil, false, "missing"),
        .init(.in, .array([.double(.nan)]), .double(.nan), false, "NaN in [NaN]: nothing (production)"),
        .init(.in, .array([.integer(0)]), .double(-0.0), true, "-0.0 in [0]"),
        .init(
            .in, .array([.map(["a": .array([.integer(42)])])]), .map(["a": .array([.integer(42)])]), true,
            "an equal map"),
        .init(
            .in, .array([.map(["a": .array([.integer(42)])])]), .array([.map(["a": .array([.integer(42)])])]), false,
            "an array holding the map"),
        // NOT_IN.
        .init(.notIn, oneAndA, .integer(2), true, "2"),
        .init(.notIn, oneAndA, .integer(1), false, "1"),
        .init(.notIn, oneAndA, .double(1), false, "1.0"),
        .init(.notIn, oneAndA, .string("b"), true, "\"b\""),
        .init(.notIn, oneAndA, .boolean(true), true, "true"),
        .init(.notIn, oneAndA, .array([.integer(1)]), true, "[1]"),
        .init(.notIn, oneAndA, .double(.nan), true, "NaN"),
        .init(.notIn, oneAndA, .null, false, "null never matches"),
        .init(.notIn, oneAndA, nil, false, "missing never matches"),
        .init(.notIn, .array([.integer(1), .null]), .integer(2), false, "a list holding null matches nothing"),
        .init(.notIn, .array([.double(.nan)]), .double(.nan), false, "NaN not in [NaN]"),
        .init(.notIn, .array([.double(.nan)]), .integer(1), true, "1 not in [NaN]"),
        .init(.notIn, .array([.integer(0)]), .double(-0.0), false, "-0.0 is in [0]"),
        // NOT_EQUAL on arrays and maps.
        .init(.notEqual, .array([.integer(1), .integer(2)]), .array([.integer(2), .integer(1)]), true, "[2, 1]"),
        .init(.notEqual, .array([.integer(1), .integer(2)]), .array([.integer(1), .double(2)]), false, "[1, 2.0]"),
        .init(.notEqual, .map(["a": .integer(1)]), .map(["a": .integer(1)]), false, "the same map"),
        // EQUAL on arrays: order and types matter.
        .init(
            .equal, .array([.string("foo"), .integer(1), .boolean(true)]),
            .array([.string("foo"), .integer(1), .boolean(true)]), true, "the same array"),
        .init(
            .equal, .array([.string("foo"), .integer(1)]), .array([.string("foo"), .integer(1), .boolean(true)]), false,
            "a longer array"),
        .init(
            .equal, .array([.string("foo"), .boolean(true), .integer(1)]),
            .array([.string("foo"), .integer(1), .boolean(true)]), false, "another order"),
        .init(.equal, .string("foo"), .array([.string("foo")]), false, "an array holding the value"),
    ]

    @Test(arguments: rows)
    func membership(_ row: MembershipRow) {
        var fields: [String: Value] = ["other": .integer(1)]
        if let value = row.value { fields["f"] = value }
        let filter = QueryFilter.field(F.field("f"), row.op, row.operand)
        #expect(QueryMatcher.passes(filter, path: F.path("c/d"), fields: fields) == row.expected)
    }

    /// Value, then IS_NULL, IS_NAN, IS_NOT_NULL, IS_NOT_NAN.
    static let unaryRows: [(Value?, String, String)] = [
        (nil, "FFFF", "missing"), (.null, "TFFF", "null"), (.double(.nan), "FTTF", "NaN"), (.integer(1), "FFTT", "1"),
        (.double(0), "FFTT", "0.0"), (.double(.infinity), "FFTT", "inf"), (.string("NaN"), "FFTT", "\"NaN\""),
        (.boolean(false), "FFTT", "false"), (.array([.double(.nan)]), "FFTT", "[NaN]"),
        (.array([.null]), "FFTT", "[null]"),
        (.map([:]), "FFTT", "{}"),
    ]

    @Test(arguments: unaryRows)
    func unary(_ row: (Value?, String, String)) {
        var fields: [String: Value] = [:]
        if let value = row.0 { fields["f"] = value }
        for (op, expected) in zip([UnaryOperator.isNull, .isNaN, .isNotNull, .isNotNaN], row.1) {
            #expect(
                QueryMatcher.passes(.unary(F.field("f"), op), path: F.path("c/d"), fields: fields) == (expected == "T"),
                "\(op.rawValue) on \(row.2)")
        }
    }

    /// `__name__` filters on the document `c/b`.
    static let nameRows: [(FieldOperator, Value, Bool)] = [
        (.equal, F.ref("c/b"), true), (.equal, F.ref("c/a"), false), (.notEqual, F.ref("c/b"), false),
        (.notEqual, F.ref("c/a"), true),
        (.greaterThan, F.ref("c/a"), true), (.lessThan, F.ref("c/a"), false), (.greaterThanOrEqual, F.ref("c/b"), true),
        (.lessThanOrEqual, F.ref("c/b"), true), (.lessThan, F.ref("c/b/x/y"), true), (.greaterThan, F.ref("b/z"), true),
        (.lessThan, F.ref("c/ba"), true), (.lessThan, F.ref("c-/a"), true), (.greaterThan, F.ref("c-/a"), false),
        (.in, .array([F.ref("c/a"), F.ref("c/b")]), true), (.in, .array([F.ref("c/a")]), false),
        (.notIn, .array([F.ref("c/b")]), false), (.notIn, .array([F.ref("c/a")]), true),
        (.notIn, .array([F.ref("c/a"), .null]), true), (.arrayContains, F.ref("c/b"), false),
    ]

    @Test(arguments: nameRows)
    func documentName(_ row: (FieldOperator, Value, Bool)) {
        let filter = QueryFilter.field(.documentName, row.0, row.1)
        #expect(QueryMatcher.passes(filter, path: F.path("c/b"), fields: ["__name__": .string("ignored")]) == row.2)
    }

    @Test func nameExistsForUnaryFilters() {
        let path = F.path("c/b")
        #expect(QueryMatcher.passes(.unary(.documentName, .isNotNull), path: path, fields: [:]))
        #expect(QueryMatcher.passes(.unary(.documentName, .isNotNaN), path: path, fields: [:]))
        #expect(!QueryMatcher.passes(.unary(.documentName, .isNull), path: path, fields: [:]))
        #expect(!QueryMatcher.passes(.unary(.documentName, .isNaN), path: path, fields: [:]))
    }

    static let a1 = QueryFixture.filter("a", .equal, .integer(1))
    static let b1 = QueryFixture.filter("b", .equal, .integer(1))
    static let c1 = QueryFixture.filter("c", .equal, .integer(1))

    /// Composite filters over documents with fields a, b, c each 1 or absent (written as the set present).
    static let compositeRows: [(QueryFilter, String, Bool)] = [
        (.and([a1, b1]), "ab", true), (.and([a1, b1]), "a", false), (.and([a1, b1]), "", false),
        (.or([a1, b1]), "a", true), (.or([a1, b1]), "b", true), (.or([a1, b1]), "c", false),
        (.and([.or([a1, b1]), c1]), "ac", true), (.and([.or([a1, b1]), c1]), "bc", true),
        (.and([.or([a1, b1]), c1]), "ab", false),
        (.or([.and([a1, b1]), c1]), "c", true), (.or([.and([a1, b1]), c1]), "a", false),
        (.or([.and([a1, b1]), c1]), "ab", true),
        (.or([a1, .or([b1, .and([c1, a1])])]), "c", false), (.or([a1, .or([b1, .and([c1, a1])])]), "b", true),
        (.and([]), "", true), (.or([]), "abc", false), (.and([a1]), "a", true), (.or([a1]), "b", false),
    ]

    @Test(arguments: compositeRows)
    func composite(_ row: (QueryFilter, String, Bool)) {
        var fields: [String: Value] = [:]
        for name in row.1 { fields[String(name)] = .integer(1) }
        #expect(QueryMatcher.passes(row.0, path: F.path("c/d"), fields: fields) == row.2)
        #expect(
            row.0.disjunctiveNormalForm().contains { group in
                group.allSatisfy { QueryMatcher.passes($0, path: F.path("c/d"), fields: fields) }
            } == row.2, "the DNF must agree with the filter")
    }
}
