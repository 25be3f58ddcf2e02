import Testing

@testable import HearthCore

/// A query (orderings and cursors) over ``QueryCursorTests/documents`` and the IDs it must return, in order.
struct CursorCase: Sendable, CustomTestStringConvertible {
    let name: String
    var orderBy: [QueryOrder] = [QueryOrder(field: QueryFixture.field("a"))]
    var startAt: QueryCursor?
    var endAt: QueryCursor?
    let expected: [String]

    var testDescription: String { name }
}

@Suite struct QueryCursorTests {
    typealias F = QueryFixture

    /// d5 has no `a`; d6's `a` is a string, which sorts after every number.
    static let documents: [(path: ResourcePath, fields: [String: Value])] = [
        (F.path("c/d4"), ["a": .integer(3)]), (F.path("c/d2"), ["a": .integer(2)]),
        (F.path("c/d6"), ["a": .string("x")]),
        (F.path("c/d1"), ["a": .integer(1), "b": .integer(9)]), (F.path("c/d3"), ["a": .double(2)]),
        (F.path("c/d5"), ["b": .integer(1)]),
        (F.path("other/d0"), ["a": .integer(2)]), (F.path("c/d1/c/d9"), ["a": .integer(2)]),
    ]

    static func at(_ values: Value..., before: Bool) -> QueryCursor { QueryCursor(values: values, before: before) }
    static let desc = [QueryOrder(field: QueryFixture.field("a"), descending: true)]

    static let cases: [CursorCase] = [
        .init(name: "no cursor", expected: ["d1", "d2", "d3", "d4", "d6"]),
        .init(name: "startAt 2", startAt: at(.integer(2), before: true), expected: ["d2", "d3", "d4", "d6"]),
        .init(name: "startAfter 2", startAt: at(.integer(2), before: false), expected: ["d4", "d6"]),
        .init(name: "endAt 2", endAt: at(.integer(2), before: false), expected: ["d1", "d2", "d3"]),
        .init(name: "endBefore 2", endAt: at(.integer(2), before: true), expected: ["d1"]),
        .init(
            name: "startAt 2.0 matches integers", startAt: at(.double(2), before: true),
            expected: ["d2", "d3", "d4", "d6"]),
        .init(name: "startAt 1.5", startAt: at(.double(1.5), before: true), expected: ["d2", "d3", "d4", "d6"]),
        .init(name: "startAfter 1.5", startAt: at(.double(1.5), before: false), expected: ["d2", "d3", "d4", "d6"]),
        .init(name: "startAt a string", startAt: at(.string("a"), before: true), expected: ["d6"]),
        .init(name: "startAfter the last value", startAt: at(.string("x"), before: false), expected: []),
        .init(name: "startAt null", startAt: at(.null, before: true), expected: ["d1", "d2", "d3", "d4", "d6"]),
        .init(name: "endAt null", endAt: at(.null, before: false), expected: []),
        .init(name: "startAt NaN", startAt: at(.double(.nan), before: true), expected: ["d1", "d2", "d3", "d4", "d6"]),
        .init(
            name: "startAt and endAt", startAt: at(.integer(2), before: true), endAt: at(.integer(2), before: false),
            expected: ["d2", "d3"]),
        .init(
            name: "empty range", startAt: at(.integer(3), before: true), endAt: at(.integer(2), before: false),
            expected: []),
        .init(
            name: "startAt value and name", startAt: at(.integer(2), F.ref("c/d3"), before: true),
            expected: ["d3", "d4", "d6"]),
        .init(
            name: "startAfter value and name", startAt: at(.integer(2), F.ref("c/d2"), before: false),
            expected: ["d3", "d4", "d6"]),
        .init(
            name: "startAfter value and a name between", startAt: at(.integer(2), F.ref("c/d25"), before: false),
            expected: ["d3", "d4", "d6"]),
        .init(
            name: "endBefore value and name", endAt: at(.integer(2), F.ref("c/d3"), before: true),
            expected: ["d1", "d2"]),
        .init(
            name: "endAt value and name", endAt: at(.integer(2), F.ref("c/d2"), before: false), expected: ["d1", "d2"]),
        .init(name: "descending", orderBy: desc, expected: ["d6", "d4", "d3", "d2", "d1"]),
        .init(
            name: "descending startAt 2", orderBy: desc, startAt: at(.integer(2), before: true),
            expected: ["d3", "d2", "d1"]),
        .init(
            name: "descending startAfter 2", orderBy: desc, startAt: at(.integer(2), before: false), expected: ["d1"]),
        .init(
            name: "descending endAt 2", orderBy: desc, endAt: at(.integer(2), before: false),
            expected: ["d6", "d4", "d3", "d2"]),
        .init(
            name: "descending endBefore 2", orderBy: desc, endAt: at(.integer(2), before: true), expected: ["d6", "d4"]),
        .init(
            name: "descending startAt value and name", orderBy: desc,
            startAt: at(.integer(2), F.ref("c/d2"), before: true), expected: ["d2", "d1"]),
        .init(
            name: "descending startAfter value and name", orderBy: desc,
            startAt: at(.integer(2), F.ref("c/d3"), before: false), expected: ["d2", "d1"]),
        .init(name: "name order only", orderBy: [], expected: ["d1", "d2", "d3", "d4", "d5", "d6"]),
        .init(
            name: "startAfter a name", orderBy: [], startAt: at(F.ref("c/d2"), before: false),
            expected: ["d3", "d4", "d5", "d6"]),
        .init(name: "endBefore a name", orderBy: [], endAt: at(F.ref("c/d3"), before: true), expected: ["d1", "d2"]),
        .init(
            name: "startAt a missing name", orderBy: [], startAt: at(F.ref("c/d0"), before: true),
            expected: ["d1", "d2", "d3", "d4", "d5", "d6"]),
        .init(
            name: "descending names", orderBy: [QueryOrder(field: .documentName, descending: true)],
            startAt: at(F.ref("c/d4"), before: true),
            expected: ["d4", "d3", "d2", "d1"]),
        .init(
            name: "a partial cursor over two fields",
            orderBy: [QueryOrder(field: F.field("a")), QueryOrder(field: F.field("b"))],
            startAt: at(.integer(1), before: false), expected: []),
        .init(
            name: "two fields and startAt on the second",
            orderBy: [QueryOrder(field: F.field("a")), QueryOrder(field: F.field("b"))],
            startAt: at(.integer(1), .integer(5), before: true), expected: ["d1"]),
        .init(
            name: "two fields and startAfter on the second",
            orderBy: [QueryOrder(field: F.field("a")), QueryOrder(field: F.field("b"))],
            startAt: at(.integer(1), .integer(9), before: false), expected: []),
    ]

    /// Runs a query by brute force with the matcher and the comparator.
    static func run(_ query: StructuredQuery) -> [String] {
        let normalized = query.normalized()
        return
            documents
            .filter { QueryMatcher.matches(path: $0.path, fields: $0.fields, query: normalized) }
            .sorted { QueryMatcher.compare($0, $1, orderBy: normalized.orderBy) < 0 }
            .map(\.path.lastSegment)
    }

    @Test(arguments: cases)
    func cursors(_ testCase: CursorCase) {
        let query = StructuredQuery(
            parent: .root, collectionID: "c", orderBy: testCase.orderBy, startAt: testCase.startAt,
            endAt: testCase.endAt)
        #expect(Self.run(query) == testCase.expected)
    }

    @Test func cursorComparisonIsNeverZero() {
        let orderBy = [QueryOrder(field: F.field("a")), QueryOrder(field: .documentName)]
        let fields: [String: Value] = ["a": .integer(2)]
        let path = F.path("c/d2")
        #expect(
            QueryMatcher.compare(path: path, fields: fields, to: Self.at(.integer(2), before: true), orderBy: orderBy)
                == 1)
        #expect(
            QueryMatcher.compare(path: path, fields: fields, to: Self.at(.integer(2), before: false), orderBy: orderBy)
                == -1)
        #expect(
            QueryMatcher.compare(path: path, fields: fields, to: Self.at(.integer(1), before: false), orderBy: orderBy)
                > 0)
        #expect(
            QueryMatcher.compare(path: path, fields: fields, to: Self.at(.integer(3), before: true), orderBy: orderBy)
                < 0)
        #expect(
            QueryMatcher.compare(
                path: path, fields: fields, to: Self.at(.integer(2), F.ref("c/d1"), before: true), orderBy: orderBy) > 0
        )
        #expect(
            QueryMatcher.compare(
                path: path, fields: fields, to: Self.at(.integer(2), F.ref("c/d3"), before: false), orderBy: orderBy)
                < 0)
        #expect(QueryMatcher.compare(path: path, fields: fields, to: Self.at(before: false), orderBy: orderBy) == -1)
    }
}
