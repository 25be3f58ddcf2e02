import Testing

@testable import HearthCore

@Suite struct QueryOrderingTests {
    typealias F = QueryFixture
    typealias Doc = (path: ResourcePath, fields: [String: Value])

    static let byA = [QueryOrder(field: QueryFixture.field("a")), QueryOrder(field: .documentName)]
    static let byADesc = [
        QueryOrder(field: QueryFixture.field("a"), descending: true),
        QueryOrder(field: .documentName, descending: true),
    ]
    static let byAThenBDesc = [
        QueryOrder(field: QueryFixture.field("a")), QueryOrder(field: QueryFixture.field("b"), descending: true),
        QueryOrder(field: .documentName),
    ]

    /// Two documents (path, value of a, value of b), an ordering and the expected sign.
    static let pairs: [(String, Value?, Value?, String, Value?, Value?, [QueryOrder], Int)] = [
        ("c/x", .integer(1), nil, "c/y", .integer(2), nil, byA, -1),
        ("c/x", .integer(2), nil, "c/y", .double(2), nil, byA, -1),  // equal values: __name__ decides
        ("c/y", .integer(2), nil, "c/x", .double(2), nil, byA, 1),
        ("c/x", .integer(2), nil, "c/x", .double(2), nil, byA, 0),
        ("c/x", .integer(1), nil, "c/y", .integer(2), nil, byADesc, 1),
        ("c/x", .integer(2), nil, "c/y", .integer(2), nil, byADesc, 1),  // descending __name__
        ("c/x", .null, nil, "c/y", .boolean(false), nil, byA, -1),
        ("c/x", .double(.nan), nil, "c/y", .double(-.infinity), nil, byA, -1),
        ("c/x", .integer(9), nil, "c/y", .string(""), nil, byA, -1),
        ("c/x", .map([:]), nil, "c/y", .array([.integer(9)]), nil, byA, 1),
        ("c/x", .double(-0.0), nil, "c/y", .integer(0), nil, byA, -1),
        ("c/x", nil, nil, "c/y", .null, nil, byA, -1),  // a missing field sorts first
        ("c/x", .integer(1), .integer(1), "c/y", .integer(1), .integer(2), byAThenBDesc, 1),
        ("c/x", .integer(1), .integer(2), "c/y", .integer(1), .integer(2), byAThenBDesc, -1),
        ("c/a", nil, nil, "c/a-b", nil, nil, [QueryOrder(field: .documentName)], -1),
        ("c/b", nil, nil, "c/b/s/a", nil, nil, [QueryOrder(field: .documentName)], -1),  // parent before child
        ("a/z", nil, nil, "a-c/a", nil, nil, [QueryOrder(field: .documentName)], -1),  // by segment, not by string
        ("c/B", nil, nil, "c/a", nil, nil, [QueryOrder(field: .documentName)], -1),
        ("c/x", .integer(1), nil, "c/y", .integer(2), nil, [], 0),
    ]

    @Test(arguments: pairs.indices)
    func comparesDocuments(_ index: Int) {
        let (pathA, a1, b1, pathB, a2, b2, orderBy, expected) = Self.pairs[index]
        func doc(_ path: String, _ a: Value?, _ b: Value?) -> Doc {
            var fields: [String: Value] = [:]
            fields["a"] = a
            fields["b"] = b
            return (F.path(path), fields)
        }
        let first = doc(pathA, a1, b1)
        let second = doc(pathB, a2, b2)
        #expect(QueryMatcher.compare(first, second, orderBy: orderBy).signum() == expected)
        #expect(QueryMatcher.compare(second, first, orderBy: orderBy).signum() == -expected)
    }

    @Test func sortsMixedTypesInFirestoreOrder() {
        let values: [Value] = [
            .null, .boolean(false), .boolean(true), .double(.nan), .integer(-5), .double(0.5), .integer(1),
            .timestamp(Timestamp(seconds: 0, nanos: 0)),
            .string("A"), .string("a"), .bytes([0]), F.ref("c/a"), .geoPoint(latitude: 0, longitude: 0), .array([]),
            .map([:]),
        ]
        let docs: [Doc] = values.enumerated().map { (F.path("c/\(100 - $0.offset)"), ["a": $0.element]) }
        let sorted = docs.reversed().sorted { QueryMatcher.compare($0, $1, orderBy: Self.byA) < 0 }
        #expect(sorted.map(\.path) == docs.map(\.path))
    }
}

@Suite struct QueryMatchesTests {
    typealias F = QueryFixture

    @Test func aDocumentWithoutAnOrderedFieldIsExcluded() {
        let query = StructuredQuery(parent: .root, collectionID: "c", orderBy: [QueryOrder(field: F.field("a"))])
            .normalized()
        #expect(QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .null], query: query))
        #expect(!QueryMatcher.matches(path: F.path("c/d"), fields: ["b": .integer(1)], query: query))
        #expect(
            !QueryMatcher.matches(
                path: F.path("c/d"), fields: ["a": .map(["b": .integer(1)])], query: query.with(orderBy: "a.c")))
        #expect(
            QueryMatcher.matches(
                path: F.path("c/d"), fields: ["a": .map(["c": .integer(1)])], query: query.with(orderBy: "a.c")))
    }

    @Test func anInequalityInsideAnOrRequiresItsField() {
        // `a > 1 || b == 1` is ordered by a, so {b: 1} passes the filter but is not in the result.
        let filter = QueryFilter.or([F.filter("a", .greaterThan, .integer(1)), F.filter("b", .equal, .integer(1))])
        let query = StructuredQuery(parent: .root, collectionID: "c", filter: filter).normalized()
        #expect(QueryMatcher.passes(filter, path: F.path("c/d"), fields: ["b": .integer(1)]))
        #expect(!QueryMatcher.matches(path: F.path("c/d"), fields: ["b": .integer(1)], query: query))
        #expect(QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .integer(0), "b": .integer(1)], query: query))
        #expect(!QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .integer(0), "b": .integer(2)], query: query))
    }

    @Test func notEqualExcludesMissingAndNull() {
        let query = StructuredQuery(parent: .root, collectionID: "c", filter: F.filter("a", .notEqual, .integer(1)))
            .normalized()
        #expect(QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .string("1")], query: query))
        #expect(!QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .null], query: query))
        #expect(!QueryMatcher.matches(path: F.path("c/d"), fields: [:], query: query))
    }

    @Test(arguments: [
        ("c/d", true), ("c/d/c/e", false), ("x/d", false), ("x/1/c/d", false),
    ])
    func collectionMembership(_ path: String, _ expected: Bool) {
        let query = StructuredQuery(parent: .root, collectionID: "c").normalized()
        #expect(QueryMatcher.matches(path: F.path(path), fields: [:], query: query) == expected)
    }

    @Test func collectionGroupsMatchAtAnyDepth() {
        let query = StructuredQuery(parent: F.path("u/1"), collectionID: "posts", allDescendants: true).normalized()
        #expect(QueryMatcher.matches(path: F.path("u/1/posts/p"), fields: [:], query: query))
        #expect(QueryMatcher.matches(path: F.path("u/1/x/2/posts/p"), fields: [:], query: query))
        #expect(!QueryMatcher.matches(path: F.path("u/2/posts/p"), fields: [:], query: query))
    }

    @Test func cursorsApplyAfterTheFilter() {
        let query = StructuredQuery(
            parent: .root, collectionID: "c", filter: F.filter("a", .greaterThan, .integer(0)),
            startAt: QueryCursor(values: [.integer(5)], before: false)
        ).normalized()
        #expect(query.orderBy.map(\.field) == [F.field("a"), .documentName])
        #expect(!QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .integer(5)], query: query))
        #expect(QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .integer(6)], query: query))
        #expect(!QueryMatcher.matches(path: F.path("c/d"), fields: ["a": .string("z")], query: query))
    }
}

extension StructuredQuery {
    /// This query ordered by one field (and normalized), for tests.
    fileprivate func with(orderBy field: String) -> StructuredQuery {
        var query = self
        query.orderBy = [QueryOrder(field: QueryFixture.field(field))]
        return query.normalized()
    }
}
