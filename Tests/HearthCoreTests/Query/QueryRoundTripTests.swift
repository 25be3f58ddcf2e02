import Testing

@testable import HearthCore

@Suite struct QueryRoundTripTests {
    typealias F = QueryFixture

    static let queries: [StructuredQuery] = [
        StructuredQuery(parent: .root, collectionID: "c"),
        StructuredQuery(
            parent: F.path("u/1"), collectionID: "posts", allDescendants: true,
            filter: .and([
                F.filter("a", .greaterThan, .integer(1)), .unary(F.field("n"), .isNull),
                .or([
                    F.filter("t", .arrayContains, .string("x")),
                    F.filter("s", .in, .array([.string("a"), .double(1.5), .null])),
                ]),
            ]),
            orderBy: [QueryOrder(field: F.field("a"), descending: true), QueryOrder(field: .documentName)],
            startAt: QueryCursor(values: [.integer(5)], before: true),
            endAt: QueryCursor(values: [.integer(2), F.ref("u/1/x/2/posts/p")], before: false),
            offset: 3, limit: 10, projection: [F.field("a"), FieldPath(segments: ["x.y", "z"])]),
        StructuredQuery(parent: .root, collectionID: "c", limit: 0, projection: []),
        StructuredQuery(
            parent: .root, collectionID: "c",
            filter: .and([
                F.filter("m", .equal, .map(["k": .array([.bytes([0, 255]), .geoPoint(latitude: 1, longitude: -2)])])),
                F.filter("ts", .lessThanOrEqual, .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_000))),
                F.filter("__name__", .notIn, .array([F.ref("c/a"), F.ref("c/b")])),
            ])),
        StructuredQuery(
            parent: .root, collectionID: "c", filter: .unary(FieldPath(segments: ["weird key", "ü"]), .isNotNaN)),
    ]

    @Test(arguments: queries.indices)
    func roundTrips(_ index: Int) throws {
        let query = Self.queries[index]
        let json = query.firestoreJSON(database: F.database)
        let text = json.jsonString
        let again = try StructuredQuery(
            firestoreJSON: try JSONParser.parse(text), at: "structuredQuery", database: F.database, parent: query.parent
        )
        #expect(again == query, "\(text)")
        #expect(again.firestoreJSON(database: F.database) == json)
    }

    @Test func writesTheWireShape() {
        let query = StructuredQuery(
            parent: .root, collectionID: "c",
            filter: .or([F.filter("a", .equal, .integer(1)), .unary(F.field("b"), .isNaN)]),
            orderBy: [QueryOrder(field: F.field("a"))], startAt: QueryCursor(values: [.integer(1)], before: true),
            limit: 2,
            projection: [])
        #expect(
            query.firestoreJSON(database: F.database).jsonString == #"""
                {"from":[{"collectionId":"c"}],"limit":2,"orderBy":[{"direction":"ASCENDING","field":{"fieldPath":"a"}}],"select":{"fields":[{"fieldPath":"__name__"}]},"startAt":{"before":true,"values":[{"integerValue":"1"}]},"where":{"compositeFilter":{"filters":[{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"}}},{"unaryFilter":{"field":{"fieldPath":"b"},"op":"IS_NAN"}}],"op":"OR"}}}
                """#)
    }

    @Test func specialDoublesRoundTrip() throws {
        let query = StructuredQuery(
            parent: .root, collectionID: "c",
            filter: F.filter("a", .in, .array([.double(.nan), .double(.infinity), .double(-.infinity), .double(-0.0)])))
        let text = query.firestoreJSON(database: F.database).jsonString
        #expect(text.contains(#"{"doubleValue":"NaN"}"#) && text.contains(#"{"doubleValue":"-Infinity"}"#))
        let again = try StructuredQuery(
            firestoreJSON: try JSONParser.parse(text), at: "q", database: F.database, parent: .root)
        guard case .field(_, .in, .array(let values))? = again.filter, values.count == 4 else {
            Issue.record("decoded \(String(describing: again.filter))")
            return
        }
        #expect(
            zip(values, [Value.double(.nan), .double(.infinity), .double(-.infinity), .double(-0.0)]).allSatisfy {
                sameValue($0, $1)
            })
    }
}
