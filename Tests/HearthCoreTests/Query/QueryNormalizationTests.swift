import Testing

@testable import HearthCore

/// A query's filter and explicit orderings, and the orderings normalization must give (`-` marks descending).
struct NormalizationCase: Sendable, CustomTestStringConvertible {
    let name: String
    let filter: QueryFilter?
    let orderBy: [String]
    let expected: [String]

    var testDescription: String { name }
}

@Suite struct QueryNormalizationTests {
    typealias F = QueryFixture

    static func orders(_ specs: [String]) -> [QueryOrder] {
        specs.map { spec in
            spec.hasPrefix("-")
                ? QueryOrder(field: F.field(String(spec.dropFirst())), descending: true)
                : QueryOrder(field: F.field(spec))
        }
    }

    static let cases: [NormalizationCase] = [
        .init(name: "no order", filter: nil, orderBy: [], expected: ["__name__"]),
        .init(
            name: "equality adds nothing", filter: F.filter("a", .equal, .integer(1)), orderBy: [],
            expected: ["__name__"]),
        .init(
            name: "IN and ARRAY_CONTAINS add nothing",
            filter: .and([F.filter("a", .in, .array([.integer(1)])), F.filter("b", .arrayContains, .integer(1))]),
            orderBy: [],
            expected: ["__name__"]),
        .init(
            name: "inequality adds its field", filter: F.filter("a", .greaterThan, .integer(1)), orderBy: [],
            expected: ["a", "__name__"]),
        .init(
            name: "NOT_EQUAL is an inequality", filter: F.filter("a", .notEqual, .integer(1)), orderBy: [],
            expected: ["a", "__name__"]),
        .init(
            name: "NOT_IN is an inequality", filter: F.filter("a", .notIn, .array([.integer(1)])), orderBy: [],
            expected: ["a", "__name__"]),
        .init(
            name: "IS_NOT_NULL is an inequality", filter: .unary(F.field("a"), .isNotNull), orderBy: [],
            expected: ["a", "__name__"]),
        .init(
            name: "IS_NOT_NAN is an inequality", filter: .unary(F.field("a"), .isNotNaN), orderBy: [],
            expected: ["a", "__name__"]),
        .init(name: "IS_NULL is not", filter: .unary(F.field("a"), .isNull), orderBy: [], expected: ["__name__"]),
        .init(
            name: "several inequalities in field order",
            filter: .and([
                F.filter("b", .lessThan, .integer(1)), F.filter("a.z", .greaterThan, .integer(1)),
                F.filter("a", .lessThan, .integer(9)),
                F.filter("B", .lessThan, .integer(1)),
            ]),
            orderBy: [], expected: ["B", "a", "a.z", "b", "__name__"]),
        .init(
            name: "one field twice",
            filter: .and([F.filter("a", .greaterThan, .integer(1)), F.filter("a", .lessThan, .integer(5))]),
            orderBy: [], expected: ["a", "__name__"]),
        .init(
            name: "inequalities inside OR count",
            filter: .or([
                F.filter("b", .greaterThan, .integer(1)),
                .and([F.filter("a", .equal, .integer(1)), F.filter("c", .lessThan, .integer(1))]),
            ]),
            orderBy: [], expected: ["b", "c", "__name__"]),
        .init(
            name: "explicit order comes first", filter: F.filter("a", .greaterThan, .integer(1)), orderBy: ["b"],
            expected: ["b", "a", "__name__"]),
        .init(
            name: "explicit order of the inequality field", filter: F.filter("a", .greaterThan, .integer(1)),
            orderBy: ["a"], expected: ["a", "__name__"]),
        .init(
            name: "explicit desc propagates to __name__", filter: nil, orderBy: ["-a"], expected: ["-a", "-__name__"]),
        .init(name: "last direction decides", filter: nil, orderBy: ["-a", "b"], expected: ["-a", "b", "__name__"]),
        .init(
            name: "implicit inequality takes the last direction", filter: F.filter("c", .greaterThan, .integer(1)),
            orderBy: ["-a"],
            expected: ["-a", "-c", "-__name__"]),
        .init(name: "explicit __name__ is kept", filter: nil, orderBy: ["-__name__"], expected: ["-__name__"]),
        .init(
            name: "explicit __name__ in the middle", filter: nil, orderBy: ["__name__", "-a"],
            expected: ["__name__", "-a"]),
        .init(
            name: "inequality after an explicit __name__", filter: F.filter("b", .greaterThan, .integer(1)),
            orderBy: ["__name__"],
            expected: ["__name__", "b"]),
        .init(
            name: "__name__ inequality adds only __name__", filter: F.filter("__name__", .greaterThan, F.ref("c/d")),
            orderBy: [],
            expected: ["__name__"]),
        .init(
            name: "__name__ and field inequalities",
            filter: .and([F.filter("__name__", .greaterThan, F.ref("c/d")), F.filter("a", .greaterThan, .integer(1))]),
            orderBy: [],
            expected: ["a", "__name__"]),
    ]

    @Test(arguments: cases)
    func normalizes(_ testCase: NormalizationCase) {
        let query = StructuredQuery(
            parent: .root, collectionID: "c", filter: testCase.filter, orderBy: Self.orders(testCase.orderBy))
        let normalized = query.normalized()
        #expect(normalized.orderBy == Self.orders(testCase.expected))
        #expect(normalized.normalized() == normalized)
        #expect(normalized.filter == query.filter && normalized.collectionID == query.collectionID)
    }
}

@Suite struct QueryContainmentTests {
    typealias F = QueryFixture

    static let cases: [(parent: String, group: Bool, path: String, expected: Bool)] = [
        ("", false, "c/d", true), ("", false, "x/d", false), ("", false, "c/d/c/e", false), ("", false, "c", false),
        ("", true, "c/d", true), ("", true, "x/1/c/d", true), ("", true, "c/d/c/e", true), ("", true, "x/1/y/d", false),
        ("", true, "c/d/x/e", false), ("p/1", false, "p/1/c/d", true), ("p/1", false, "p/2/c/d", false),
        ("p/1", false, "c/d", false),
        ("p/1", false, "p/1/c/d/c/e", false), ("p/1", true, "p/1/c/d", true), ("p/1", true, "p/1/x/2/c/d", true),
        ("p/1", true, "p/2/c/d", false), ("p/1", true, "c/d", false), ("c/1", true, "c/1", false),
        ("c/1", true, "c/1/c/2", true),
    ]

    @Test(arguments: cases)
    func contains(_ testCase: (parent: String, group: Bool, path: String, expected: Bool)) {
        let query = StructuredQuery(parent: F.path(testCase.parent), collectionID: "c", allDescendants: testCase.group)
        #expect(query.contains(path: F.path(testCase.path)) == testCase.expected)
    }
}

@Suite struct QueryFilterAnalysisTests {
    typealias F = QueryFixture

    static let a1 = F.filter("a", .equal, .integer(1))
    static let b1 = F.filter("b", .equal, .integer(1))
    static let c1 = F.filter("c", .equal, .integer(1))
    static let d1 = F.filter("d", .equal, .integer(1))
    static let inList = F.filter("e", .in, .array([.integer(1), .integer(2), .integer(3)]))
    static let any = F.filter("t", .arrayContainsAny, .array([.integer(1), .integer(2)]))

    static let dnfCases: [(String, QueryFilter, [[QueryFilter]], Int)] = [
        ("a single term", a1, [[a1]], 1),
        ("a unary term", .unary(F.field("a"), .isNull), [[.unary(F.field("a"), .isNull)]], 1),
        ("flat AND", .and([a1, b1]), [[a1, b1]], 1),
        ("nested ANDs flatten", .and([a1, .and([b1, .and([c1])])]), [[a1, b1, c1]], 1),
        ("flat OR", .or([a1, b1]), [[a1], [b1]], 2),
        ("nested ORs flatten", .or([a1, .or([b1, c1])]), [[a1], [b1], [c1]], 3),
        ("AND distributes over OR", .and([a1, .or([b1, c1])]), [[a1, b1], [a1, c1]], 2),
        ("two ORs multiply", .and([.or([a1, b1]), .or([c1, d1])]), [[a1, c1], [a1, d1], [b1, c1], [b1, d1]], 4),
        ("OR of ANDs stays", .or([.and([a1, b1]), .and([c1, d1])]), [[a1, b1], [c1, d1]], 2),
        ("IN stays one term but counts its values", .and([a1, inList]), [[a1, inList]], 3),
        ("ARRAY_CONTAINS_ANY stays one term", .or([any, a1]), [[any], [a1]], 3),
        ("IN times OR", .and([inList, .or([a1, b1])]), [[inList, a1], [inList, b1]], 6),
        ("empty AND is everything", .and([]), [[]], 1),
        ("empty OR is nothing", .or([]), [], 0),
    ]

    @Test(arguments: dnfCases)
    func disjunctiveNormalForm(_ testCase: (String, QueryFilter, [[QueryFilter]], Int)) {
        let (_, filter, expected, count) = testCase
        #expect(filter.disjunctiveNormalForm() == expected)
        #expect(filter.disjunctionCount == count)
    }

    @Test func disjunctionCountSaturates() {
        let wide = QueryFilter.or(Array(repeating: .and([Self.inList, Self.inList]), count: 4))
        var filter = wide
        for _ in 0..<40 { filter = .and([filter, wide]) }
        #expect(filter.disjunctionCount == Int.max)
    }

    static let inequalityCases: [(QueryFilter, Set<String>)] = [
        (a1, []),
        (F.filter("a", .lessThan, .integer(1)), ["a"]), (F.filter("a", .lessThanOrEqual, .integer(1)), ["a"]),
        (F.filter("a", .greaterThan, .integer(1)), ["a"]), (F.filter("a", .greaterThanOrEqual, .integer(1)), ["a"]),
        (F.filter("a", .notEqual, .integer(1)), ["a"]), (F.filter("a", .notIn, .array([.integer(1)])), ["a"]),
        (F.filter("a", .in, .array([.integer(1)])), []), (F.filter("a", .arrayContains, .integer(1)), []), (any, []),
        (.unary(F.field("a"), .isNotNull), ["a"]), (.unary(F.field("a"), .isNotNaN), ["a"]),
        (.unary(F.field("a"), .isNull), []), (.unary(F.field("a"), .isNaN), []),
        (
            .or([F.filter("x.y", .lessThan, .integer(1)), .and([b1, F.filter("z", .greaterThan, .integer(1))])]),
            ["x.y", "z"]
        ),
        (F.filter("__name__", .greaterThan, F.ref("c/d")), ["__name__"]),
    ]

    @Test(arguments: inequalityCases)
    func inequalityFields(_ testCase: (QueryFilter, Set<String>)) {
        #expect(testCase.0.inequalityFields == Set(testCase.1.map(F.field)))
    }
}
