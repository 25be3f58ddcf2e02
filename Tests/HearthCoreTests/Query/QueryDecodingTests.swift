import Testing

@testable import HearthCore

@Suite struct QueryDecodingTests {
    typealias F = QueryFixture

    @Test func decodesEveryMember() throws {
        let query = try F.decode(
            #"""
            {"select":{"fields":[{"fieldPath":"a"},{"fieldPath":"b.c"},{"fieldPath":"`x.y`"}]},
             "from":[{"collectionId":"posts","allDescendants":true}],
             "where":{"compositeFilter":{"op":"AND","filters":[
                {"fieldFilter":{"field":{"fieldPath":"a"},"op":"GREATER_THAN","value":{"integerValue":"1"}}},
                {"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"n"}}}]}},
             "orderBy":[{"field":{"fieldPath":"a"},"direction":"DESCENDING"},{"field":{"fieldPath":"__name__"}}],
             "startAt":{"values":[{"integerValue":"5"}],"before":true},
             "endAt":{"values":[{"integerValue":"2"},{"referenceValue":"projects/demo/databases/(default)/documents/u/1/posts/p"}]},
             "offset":3,"limit":{"value":10}}
            """#, parent: "u/1")
        let expected = StructuredQuery(
            parent: F.path("u/1"), collectionID: "posts", allDescendants: true,
            filter: .and([F.filter("a", .greaterThan, .integer(1)), .unary(F.field("n"), .isNull)]),
            orderBy: [QueryOrder(field: F.field("a"), descending: true), QueryOrder(field: .documentName)],
            startAt: QueryCursor(values: [.integer(5)], before: true),
            endAt: QueryCursor(values: [.integer(2), F.ref("u/1/posts/p")], before: false),
            offset: 3, limit: 10, projection: [F.field("a"), F.field("b.c"), FieldPath(segments: ["x.y"])])
        #expect(query == expected)
    }

    @Test func minimalQueryHasDefaults() throws {
        let query = try F.decode(F.query())
        #expect(query == StructuredQuery(parent: .root, collectionID: "c"))
        #expect(query.offset == 0 && query.limit == nil && query.projection == nil && query.filter == nil)
    }

    @Test(arguments: [
        (#""limit":5"#, 5), (#""limit":"7""#, 7), (#""limit":{"value":9}"#, 9), (#""limit":{"value":"11"}"#, 11),
        (#""limit":0"#, 0), (#""limit":2147483647"#, 2_147_483_647), (#""limit":null"#, -1),
    ])
    func limitForms(_ member: String, _ expected: Int) throws {
        let query = try F.decode(F.query(member))
        #expect(query.limit == (expected < 0 ? nil : expected))
    }

    @Test(arguments: [(#""offset":4"#, 4), (#""offset":"6""#, 6), (#""offset":{"value":2}"#, 2), (#""offset":0"#, 0)])
    func offsetForms(_ member: String, _ expected: Int) throws {
        #expect(try F.decode(F.query(member)).offset == expected)
    }

    @Test(arguments: [
        (#"{"field":{"fieldPath":"a"}}"#, false), (#"{"field":{"fieldPath":"a"},"direction":"ASCENDING"}"#, false),
        (#"{"field":{"fieldPath":"a"},"direction":"DIRECTION_UNSPECIFIED"}"#, false),
        (#"{"field":{"fieldPath":"a"},"direction":"DESCENDING"}"#, true),
    ])
    func orderDirections(_ order: String, _ descending: Bool) throws {
        let query = try F.decode(F.query(#""orderBy":[\#(order)]"#))
        #expect(query.orderBy == [QueryOrder(field: F.field("a"), descending: descending)])
    }

    @Test(
        arguments: [
            ("", nil), (#""select":{}"#, nil), (#""select":{"fields":[]}"#, nil),
            (#""select":{"fields":[{"fieldPath":"__name__"}]}"#, [String]()),
            (
                #""select":{"fields":[{"fieldPath":"a"},{"fieldPath":"a"},{"fieldPath":"__name__"},{"fieldPath":"b.c"}]}"#,
                ["a", "b.c"]
            ),
        ] as [(String, [String]?)])
    func selectForms(_ member: String, _ expected: [String]?) throws {
        #expect(try F.decode(F.query(member)).projection == expected?.map(F.field))
    }

    static let filters: [(String, QueryFilter)] = [
        (F.fieldFilter("a", "EQUAL", #"{"stringValue":"x"}"#), F.filter("a", .equal, .string("x"))),
        (F.fieldFilter("a.b", "LESS_THAN", #"{"doubleValue":1.5}"#), F.filter("a.b", .lessThan, .double(1.5))),
        (F.fieldFilter("a", "LESS_THAN_OR_EQUAL", #"{"nullValue":null}"#), F.filter("a", .lessThanOrEqual, .null)),
        (F.fieldFilter("a", "GREATER_THAN", #"{"doubleValue":"NaN"}"#), F.filter("a", .greaterThan, .double(.nan))),
        (
            F.fieldFilter("a", "GREATER_THAN_OR_EQUAL", #"{"booleanValue":true}"#),
            F.filter("a", .greaterThanOrEqual, .boolean(true))
        ),
        (F.fieldFilter("a", "NOT_EQUAL", #"{"integerValue":"3"}"#), F.filter("a", .notEqual, .integer(3))),
        (
            F.fieldFilter("tags", "ARRAY_CONTAINS", #"{"stringValue":"x"}"#),
            F.filter("tags", .arrayContains, .string("x"))
        ),
        (
            F.fieldFilter("a", "IN", #"{"arrayValue":{"values":[{"integerValue":"1"},{"nullValue":null}]}}"#),
            F.filter("a", .in, .array([.integer(1), .null]))
        ),
        (
            F.fieldFilter("a", "NOT_IN", #"{"arrayValue":{"values":[{"integerValue":"1"}]}}"#),
            F.filter("a", .notIn, .array([.integer(1)]))
        ),
        (
            F.fieldFilter("t", "ARRAY_CONTAINS_ANY", #"{"arrayValue":{"values":[{"integerValue":"1"}]}}"#),
            F.filter("t", .arrayContainsAny, .array([.integer(1)]))
        ),
        (
            F.fieldFilter(
                "__name__", "EQUAL", #"{"referenceValue":"projects/demo/databases/(default)/documents/c/d"}"#),
            F.filter("__name__", .equal, F.ref("c/d"))
        ),
        (
            F.fieldFilter(
                "__name__", "IN",
                #"{"arrayValue":{"values":[{"referenceValue":"projects/demo/databases/(default)/documents/o/d"}]}}"#),
            F.filter("__name__", .in, .array([F.ref("o/d")]))
        ),
        (#"{"unaryFilter":{"op":"IS_NAN","field":{"fieldPath":"a"}}}"#, .unary(F.field("a"), .isNaN)),
        (#"{"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"a"}}}"#, .unary(F.field("a"), .isNull)),
        (#"{"unaryFilter":{"op":"IS_NOT_NAN","field":{"fieldPath":"a"}}}"#, .unary(F.field("a"), .isNotNaN)),
        (
            #"{"unaryFilter":{"op":"IS_NOT_NULL","field":{"fieldPath":"`a b`"}}}"#,
            .unary(FieldPath(segments: ["a b"]), .isNotNull)
        ),
        (
            #"{"compositeFilter":{"op":"OR","filters":[\#(F.fieldFilter("a", "EQUAL", #"{"integerValue":"1"}"#)),{"compositeFilter":{"op":"AND","filters":[\#(F.fieldFilter("b", "EQUAL", #"{"integerValue":"2"}"#))]}}]}}"#,
            .or([F.filter("a", .equal, .integer(1)), .and([F.filter("b", .equal, .integer(2))])])
        ),
    ]

    @Test(arguments: filters.indices)
    func decodesFilters(_ index: Int) throws {
        let (json, expected) = Self.filters[index]
        let query = try F.decode(F.query(#""where":\#(json)"#))
        if case .field(let path, .greaterThan, let value) = query.filter {  // NaN is never == itself
            #expect(path == F.field("a") && value.isNaN)
        } else {
            #expect(query.filter == expected)
        }
    }

    @Test func decodesUnderADocumentAndCollectionGroups() throws {
        let query = try F.decode(#"{"from":[{"collectionId":"posts","allDescendants":false}]}"#, parent: "users/alice")
        #expect(query.parent == F.path("users/alice") && query.collectionID == "posts" && !query.allDescendants)
        #expect(query.collectionPath == F.path("users/alice/posts"))
        let group = try F.decode(#"{"from":[{"collectionId":"posts","allDescendants":true}]}"#)
        #expect(group.allDescendants && group.parent == .root)
    }

    @Test(arguments: ["c", "c/d/e"])
    func rejectsACollectionParent(_ parent: String) {
        let error = F.decodeError(F.query(), parent: parent)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("not a collection") == true)
    }
}
