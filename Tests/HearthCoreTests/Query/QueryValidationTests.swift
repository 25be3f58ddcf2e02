import Testing

@testable import HearthCore

/// One query that must fail to decode, and a fragment its message must contain.
struct InvalidQueryCase: Sendable, CustomTestStringConvertible {
    let name: String
    let json: String
    var parent = ""
    let fragment: String

    var testDescription: String { name }
}

@Suite struct QueryValidationTests {
    typealias F = QueryFixture

    static func values(_ count: Int, _ make: (Int) -> String = { #"{"integerValue":"\#($0)"}"# }) -> String {
        #"{"arrayValue":{"values":[\#((0..<count).map(make).joined(separator: ","))]}}"#
    }

    static func and(_ filters: String...) -> String {
        #"{"compositeFilter":{"op":"AND","filters":[\#(filters.joined(separator: ","))]}}"#
    }

    static func or(_ filters: [String]) -> String {
        #"{"compositeFilter":{"op":"OR","filters":[\#(filters.joined(separator: ","))]}}"#
    }

    static func whereQuery(_ filter: String) -> String { F.query(#""where":\#(filter)"#) }

    static let one = #"{"integerValue":"1"}"#
    static let two = #"{"integerValue":"2"}"#

    static let cases: [InvalidQueryCase] = [
        // Shape and unknown members.
        .init(name: "not an object", json: "[]", fragment: "Expected an object at 'structuredQuery'"),
        .init(
            name: "unknown top-level member", json: F.query(#""bogus":1"#),
            fragment: #"Unknown name "bogus" at 'structuredQuery'"#),
        .init(
            name: "unknown selector member", json: #"{"from":[{"collectionId":"c","x":1}]}"#,
            fragment: #"Unknown name "x" at 'structuredQuery.from[0]'"#),
        .init(
            name: "unknown filter member",
            json: whereQuery(#"{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":\#(one),"extra":1}}"#),
            fragment: #"Unknown name "extra" at 'structuredQuery.where.fieldFilter'"#),
        .init(
            name: "unknown field reference member",
            json: whereQuery(#"{"unaryFilter":{"op":"IS_NULL","field":{"path":"a"}}}"#),
            fragment: #"Unknown name "path" at 'structuredQuery.where.unaryFilter.field'"#),
        .init(
            name: "unknown order member", json: F.query(#""orderBy":[{"field":{"fieldPath":"a"},"dir":"ASCENDING"}]"#),
            fragment: #"Unknown name "dir""#),
        .init(
            name: "unknown cursor member", json: F.query(#""startAt":{"values":[],"after":true}"#),
            fragment: #"Unknown name "after" at 'structuredQuery.startAt'"#),
        .init(
            name: "unknown select member", json: F.query(#""select":{"field":[]}"#),
            fragment: #"Unknown name "field" at 'structuredQuery.select'"#),
        .init(
            name: "unknown limit wrapper member", json: F.query(#""limit":{"val":1}"#),
            fragment: #"Unknown name "val" at 'structuredQuery.limit'"#),
        .init(
            name: "unknown filter kind", json: whereQuery(#"{"rangeFilter":{}}"#),
            fragment: #"Unknown name "rangeFilter""#),
        .init(name: "vector search", json: F.query(#""findNearest":{}"#), fragment: "findNearest"),
        // from.
        .init(name: "no from", json: "{}", fragment: "exactly one collection"),
        .init(name: "empty from", json: #"{"from":[]}"#, fragment: "found 0"),
        .init(
            name: "two selectors", json: #"{"from":[{"collectionId":"a"},{"collectionId":"b"}]}"#, fragment: "found 2"),
        .init(name: "from not a list", json: #"{"from":{"collectionId":"a"}}"#, fragment: "expected a list"),
        .init(
            name: "no collection id", json: #"{"from":[{}]}"#,
            fragment: "collectionId is required unless allDescendants"),
        .init(
            name: "kindless query filtering a field",
            json: #"{"from":[{"allDescendants":true}],"where":\#(F.fieldFilter("b", "GREATER_THAN", one))}"#,
            fragment: "filters and orders by __name__ only, not by b"),
        .init(
            name: "kindless query ordered descending",
            json:
                #"{"from":[{"allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}]}"#,
            fragment: "__name__ ascending only"),
        .init(
            name: "empty collection id", json: #"{"from":[{"collectionId":""}]}"#, fragment: "collectionId is required"),
        .init(
            name: "collection id with slash", json: #"{"from":[{"collectionId":"a/b/c"}]}"#, fragment: "without \"/\""),
        .init(name: "reserved collection id", json: #"{"from":[{"collectionId":"__x__"}]}"#, fragment: "reserved"),
        .init(
            name: "allDescendants not a bool", json: #"{"from":[{"collectionId":"c","allDescendants":"yes"}]}"#,
            fragment: "expected true or false"),
        // Filter shape.
        .init(
            name: "empty filter", json: whereQuery("{}"),
            fragment: "needs one of compositeFilter, fieldFilter or unaryFilter"),
        .init(
            name: "two filter kinds",
            json: whereQuery(
                #"{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":\#(one)},"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"a"}}}"#
            ),
            fragment: "Oneof field 'filter_type' is already set"),
        .init(
            name: "composite without filters", json: whereQuery(#"{"compositeFilter":{"op":"AND","filters":[]}}"#),
            fragment: "at least one filter"),
        .init(
            name: "composite without op",
            json: whereQuery(#"{"compositeFilter":{"filters":[\#(F.fieldFilter("a", "EQUAL", one))]}}"#),
            fragment: "needs op"),
        .init(
            name: "composite bad op",
            json: whereQuery(#"{"compositeFilter":{"op":"XOR","filters":[\#(F.fieldFilter("a", "EQUAL", one))]}}"#),
            fragment:
                #"'structuredQuery.where.compositeFilter.op' (type.googleapis.com/google.firestore.v1.StructuredQuery.CompositeFilter.Operator), "XOR": expected one of AND, OR"#
        ),
        .init(
            name: "field filter without field", json: whereQuery(#"{"fieldFilter":{"op":"EQUAL","value":\#(one)}}"#),
            fragment: "needs field"),
        .init(
            name: "field filter without op",
            json: whereQuery(#"{"fieldFilter":{"field":{"fieldPath":"a"},"value":\#(one)}}"#), fragment: "needs op"),
        .init(
            name: "field filter without value",
            json: whereQuery(#"{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL"}}"#), fragment: "needs value"),
        .init(
            name: "field filter bad op", json: whereQuery(F.fieldFilter("a", "LIKE", one)),
            fragment: #""LIKE": expected one of LESS_THAN"#),
        .init(
            name: "unary bad op", json: whereQuery(#"{"unaryFilter":{"op":"IS_EMPTY","field":{"fieldPath":"a"}}}"#),
            fragment: "expected one of IS_NAN"),
        .init(
            name: "unary without field", json: whereQuery(#"{"unaryFilter":{"op":"IS_NULL"}}"#), fragment: "needs field"
        ),
        .init(
            name: "unary on __name__",
            json: whereQuery(#"{"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"__name__"}}}"#),
            fragment: "cannot be applied to __name__"),
        .init(
            name: "bad value", json: whereQuery(F.fieldFilter("a", "EQUAL", #"{"integerValue":"x"}"#)),
            fragment: "'structuredQuery.where.fieldFilter.value'"),
        // Field paths.
        .init(name: "empty field path", json: whereQuery(F.fieldFilter("", "EQUAL", one)), fragment: "cannot be empty"),
        .init(name: "empty segment", json: whereQuery(F.fieldFilter("a..b", "EQUAL", one)), fragment: "empty segment"),
        .init(
            name: "unquoted special characters", json: whereQuery(F.fieldFilter("a-b", "EQUAL", one)),
            fragment: "back-ticks"),
        .init(
            name: "reserved field name", json: whereQuery(F.fieldFilter("__x__", "EQUAL", one)), fragment: "reserved"),
        .init(
            name: "__name__ inside a map", json: whereQuery(F.fieldFilter("a.__name__", "EQUAL", one)),
            fragment: "reserved"),
        .init(name: "missing fieldPath", json: F.query(#""orderBy":[{"field":{}}]"#), fragment: "needs a fieldPath"),
        // Operands.
        .init(
            name: "IN without array", json: whereQuery(F.fieldFilter("a", "IN", one)),
            fragment: "IN needs a non-empty arrayValue"),
        .init(
            name: "IN empty", json: whereQuery(F.fieldFilter("a", "IN", values(0))),
            fragment: "IN needs a non-empty arrayValue"),
        .init(
            name: "IN 31 values", json: whereQuery(F.fieldFilter("a", "IN", values(31))),
            fragment: "IN takes at most 30 values, got 31"),
        .init(
            name: "NOT_IN empty", json: whereQuery(F.fieldFilter("a", "NOT_IN", values(0))),
            fragment: "NOT_IN needs a non-empty arrayValue"),
        .init(
            name: "NOT_IN 11 values", json: whereQuery(F.fieldFilter("a", "NOT_IN", values(11))),
            fragment: "NOT_IN takes at most 10 values, got 11"),
        .init(
            name: "ARRAY_CONTAINS_ANY not array", json: whereQuery(F.fieldFilter("a", "ARRAY_CONTAINS_ANY", one)),
            fragment: "ARRAY_CONTAINS_ANY needs a non-empty arrayValue"),
        .init(
            name: "ARRAY_CONTAINS_ANY 31 values",
            json: whereQuery(F.fieldFilter("a", "ARRAY_CONTAINS_ANY", values(31))), fragment: "at most 30 values"),
        .init(
            name: "IN array nested twice",
            json: whereQuery(
                F.fieldFilter("a", "IN", #"{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{}}]}}]}}"#)),
            fragment: "cannot directly contain another array"),
        .init(
            name: "ARRAY_CONTAINS with an array", json: whereQuery(F.fieldFilter("a", "ARRAY_CONTAINS", values(1))),
            fragment: "use ARRAY_CONTAINS_ANY"),
        .init(
            name: "__name__ with a string",
            json: whereQuery(F.fieldFilter("__name__", "EQUAL", #"{"stringValue":"c/d"}"#)),
            fragment: "takes a referenceValue"),
        .init(
            name: "__name__ IN with a string",
            json: whereQuery(F.fieldFilter("__name__", "IN", #"{"arrayValue":{"values":[{"stringValue":"d"}]}}"#)),
            fragment: "'structuredQuery.where.fieldFilter.value[0]': a filter on __name__ takes a referenceValue"),
        .init(
            name: "__name__ in another database",
            json: whereQuery(
                F.fieldFilter(
                    "__name__", "LESS_THAN", #"{"referenceValue":"projects/other/databases/(default)/documents/c/d"}"#)),
            fragment: "is not under \"projects/demo/databases/(default)/documents\""),
        .init(
            name: "__name__ ARRAY_CONTAINS",
            json: whereQuery(
                F.fieldFilter(
                    "__name__", "ARRAY_CONTAINS",
                    #"{"referenceValue":"projects/demo/databases/(default)/documents/c/d"}"#)),
            fragment: "ARRAY_CONTAINS cannot be applied to __name__"),
        .init(
            name: "__name__ ARRAY_CONTAINS_ANY",
            json: whereQuery(
                F.fieldFilter(
                    "__name__", "ARRAY_CONTAINS_ANY",
                    #"{"arrayValue":{"values":[{"referenceValue":"projects/demo/databases/(default)/documents/c/d"}]}}"#
                )),
            fragment: "ARRAY_CONTAINS_ANY cannot be applied to __name__"),
        // Combinations.
        .init(
            name: "two ARRAY_CONTAINS",
            json: whereQuery(and(F.fieldFilter("a", "ARRAY_CONTAINS", one), F.fieldFilter("b", "ARRAY_CONTAINS", one))),
            fragment: "at most one ARRAY_CONTAINS or ARRAY_CONTAINS_ANY filter per disjunction"),
        .init(
            name: "ARRAY_CONTAINS with ARRAY_CONTAINS_ANY",
            json: whereQuery(
                and(F.fieldFilter("a", "ARRAY_CONTAINS", one), F.fieldFilter("b", "ARRAY_CONTAINS_ANY", values(2)))),
            fragment: "per disjunction"),
        .init(
            name: "two ARRAY_CONTAINS after distribution",
            json: whereQuery(
                and(
                    F.fieldFilter("a", "ARRAY_CONTAINS", one),
                    or([F.fieldFilter("b", "EQUAL", one), F.fieldFilter("c", "ARRAY_CONTAINS", one)]))),
            fragment: "per disjunction"),
        .init(
            name: "NOT_IN with NOT_EQUAL",
            json: whereQuery(and(F.fieldFilter("a", "NOT_IN", values(2)), F.fieldFilter("b", "NOT_EQUAL", one))),
            fragment: "only one NOT_EQUAL, NOT_IN, IS_NOT_NULL or IS_NOT_NAN filter; this one has NOT_IN, NOT_EQUAL"),
        .init(
            name: "two NOT_IN",
            json: whereQuery(and(F.fieldFilter("a", "NOT_IN", values(2)), F.fieldFilter("a", "NOT_IN", values(3)))),
            fragment: "has NOT_IN, NOT_IN"),
        .init(
            name: "two NOT_EQUAL",
            json: whereQuery(and(F.fieldFilter("a", "NOT_EQUAL", one), F.fieldFilter("b", "NOT_EQUAL", one))),
            fragment: "has NOT_EQUAL, NOT_EQUAL"),
        .init(
            name: "IS_NOT_NULL with NOT_EQUAL",
            json: whereQuery(
                and(
                    #"{"unaryFilter":{"op":"IS_NOT_NULL","field":{"fieldPath":"a"}}}"#,
                    F.fieldFilter("b", "NOT_EQUAL", one))),
            fragment: "has IS_NOT_NULL, NOT_EQUAL"),
        .init(
            name: "NOT_IN with IN",
            json: whereQuery(and(F.fieldFilter("a", "NOT_IN", values(2)), F.fieldFilter("b", "IN", values(2)))),
            fragment: "NOT_IN cannot be combined with IN"),
        .init(
            name: "NOT_IN with ARRAY_CONTAINS_ANY",
            json: whereQuery(
                and(F.fieldFilter("a", "NOT_IN", values(2)), F.fieldFilter("b", "ARRAY_CONTAINS_ANY", values(2)))),
            fragment: "NOT_IN cannot be combined"),
        .init(
            name: "NOT_IN with OR",
            json: whereQuery(or([F.fieldFilter("a", "NOT_IN", values(2)), F.fieldFilter("b", "EQUAL", one)])),
            fragment: "NOT_IN cannot be combined with IN, ARRAY_CONTAINS_ANY or OR"),
        .init(
            name: "36 disjunctions from two INs",
            json: whereQuery(and(F.fieldFilter("a", "IN", values(6)), F.fieldFilter("b", "IN", values(6)))),
            fragment: "the filter has 36 disjunctions"),
        .init(
            name: "31 OR branches", json: whereQuery(or((0..<31).map { F.fieldFilter("a\($0)", "EQUAL", one) })),
            fragment: "has 31 disjunctions"),
        .init(
            name: "32 disjunctions from an AND of ORs",
            json: whereQuery(
                and(
                    or([F.fieldFilter("a", "EQUAL", one), F.fieldFilter("a", "EQUAL", two)]),
                    or([F.fieldFilter("b", "EQUAL", one), F.fieldFilter("b", "EQUAL", two)]),
                    or([F.fieldFilter("c", "EQUAL", one), F.fieldFilter("c", "EQUAL", two)]),
                    or([F.fieldFilter("d", "EQUAL", one), F.fieldFilter("d", "EQUAL", two)]),
                    or([F.fieldFilter("e", "EQUAL", one), F.fieldFilter("e", "EQUAL", two)]))),
            fragment: "has 32 disjunctions"),
        .init(
            name: "11 inequality fields",
            json: whereQuery(and((0..<11).map { F.fieldFilter("f\($0)", "GREATER_THAN", one) }.joined(separator: ","))),
            fragment: "on 11 fields; Firestore allows at most 10"),
        // orderBy.
        .init(
            name: "repeated order",
            json: F.query(
                #""orderBy":[{"field":{"fieldPath":"a"}},{"field":{"fieldPath":"b"}},{"field":{"fieldPath":"a"},"direction":"DESCENDING"}]"#
            ),
            fragment: "'structuredQuery.orderBy[2]': the query already orders by a"),
        .init(
            name: "repeated __name__ order",
            json: F.query(#""orderBy":[{"field":{"fieldPath":"__name__"}},{"field":{"fieldPath":"__name__"}}]"#),
            fragment: "already orders by __name__"),
        .init(
            name: "order after __name__",
            json: F.query(#""orderBy":[{"field":{"fieldPath":"__name__"}},{"field":{"fieldPath":"a"}}]"#),
            fragment: "'structuredQuery.orderBy[1]': order by clause cannot contain more fields after the key __name__"),
        .init(
            name: "inequality ordered implicitly after an explicit __name__",
            json: F.query(
                #""where":\#(F.fieldFilter("a", "GREATER_THAN", one)),"orderBy":[{"field":{"fieldPath":"__name__"}}]"#),
            fragment:
                "cannot contain more fields after the key __name__ (an inequality filter on a orders by that field"),
        .init(
            name: "order without field", json: F.query(#""orderBy":[{"direction":"ASCENDING"}]"#),
            fragment: "an order needs field"),
        .init(
            name: "bad direction", json: F.query(#""orderBy":[{"field":{"fieldPath":"a"},"direction":"UP"}]"#),
            fragment:
                "(type.googleapis.com/google.firestore.v1.StructuredQuery.Direction), \"UP\": expected one of DIRECTION_UNSPECIFIED, ASCENDING, DESCENDING"
        ),
        .init(name: "orderBy not a list", json: F.query(#""orderBy":{}"#), fragment: "expected a list"),
        // Cursors.
        // Firestore counts the orderBy clauses the request states, not the implicit ones.
        .init(
            name: "too many cursor values",
            json: F.query(
                #""orderBy":[{"field":{"fieldPath":"a"}}],"startAt":{"values":[\#(one),{"referenceValue":"projects/demo/databases/(default)/documents/c/d"}]}"#
            ),
            fragment:
                "'structuredQuery.startAt.values': the cursor has 2 values but the query states only 1 orderBy clauses (a)"
        ),
        .init(
            name: "too many cursor values without order",
            json: F.query(
                #""endAt":{"values":[{"referenceValue":"projects/demo/databases/(default)/documents/c/d"}]}"#),
            fragment:
                "'structuredQuery.endAt.values': the cursor has 1 values but the query states only 0 orderBy clauses"),
        .init(
            name: "cursor values for implicit inequality orders",
            json: F.query(#""where":\#(F.fieldFilter("b", "GREATER_THAN", one)),"startAt":{"values":[\#(one)]}"#),
            fragment: "the cursor has 1 values but the query states only 0 orderBy clauses"),
        .init(
            name: "__name__ cursor not a reference",
            json: F.query(
                #""orderBy":[{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[{"stringValue":"d"}]}"#),
            fragment: "'structuredQuery.startAt.values[0]': the cursor value for __name__ must be a referenceValue"),
        .init(
            name: "__name__ cursor in another database",
            json: F.query(
                #""orderBy":[{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[{"referenceValue":"projects/x/databases/(default)/documents/c/d"}]}"#
            ),
            fragment: "is not under \"projects/demo/databases/(default)/documents\""),
        .init(
            name: "cursor before not a bool", json: F.query(#""startAt":{"values":[],"before":1}"#),
            fragment: "expected true or false"),
        // offset and limit.
        .init(
            name: "negative offset", json: F.query(#""offset":-1"#),
            fragment: "'structuredQuery.offset': offset must be zero or more, got -1"),
        .init(name: "negative limit", json: F.query(#""limit":-5"#), fragment: "limit must be zero or more, got -5"),
        .init(
            name: "negative wrapped limit", json: F.query(#""limit":{"value":-1}"#),
            fragment: "limit must be zero or more"),
        .init(
            name: "limit beyond int32", json: F.query(#""limit":2147483648"#),
            fragment: "limit must be at most 2147483647"),
        .init(
            name: "limit not a number", json: F.query(#""limit":"ten""#),
            fragment: "'structuredQuery.limit': expected an integer"),
        .init(name: "fractional offset", json: F.query(#""offset":1.5"#), fragment: "expected an integer"),
    ]

    @Test(arguments: cases)
    func rejects(_ testCase: InvalidQueryCase) {
        let error = F.decodeError(testCase.json, parent: testCase.parent)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(testCase.fragment) == true, "\(error?.message ?? "decoded without error")")
    }

    static let accepted: [(String, String)] = [
        ("IN with 30 values", whereQuery(F.fieldFilter("a", "IN", values(30)))),
        // Firestore matches whole arrays with IN: where('regions', 'in', [['west'], ['east']]).
        (
            "IN with array values",
            whereQuery(F.fieldFilter("a", "IN", #"{"arrayValue":{"values":[{"arrayValue":{}}]}}"#))
        ),
        ("NOT_IN with 10 values", whereQuery(F.fieldFilter("a", "NOT_IN", values(10)))),
        ("ARRAY_CONTAINS_ANY with 30 values", whereQuery(F.fieldFilter("a", "ARRAY_CONTAINS_ANY", values(30)))),
        (
            "exactly 30 disjunctions",
            whereQuery(and(F.fieldFilter("a", "IN", values(5)), F.fieldFilter("b", "IN", values(6))))
        ),
        (
            "array filters in separate disjunctions",
            whereQuery(
                or([F.fieldFilter("a", "ARRAY_CONTAINS", one), F.fieldFilter("b", "ARRAY_CONTAINS_ANY", values(2))]))
        ),
        (
            "NOT_IN with ARRAY_CONTAINS",
            whereQuery(and(F.fieldFilter("a", "NOT_IN", values(2)), F.fieldFilter("b", "ARRAY_CONTAINS", one)))
        ),
        ("NOT_IN in a one-filter OR", whereQuery(or([F.fieldFilter("a", "NOT_IN", values(2))]))),
        (
            "10 inequality fields and __name__",
            whereQuery(
                and(
                    ((0..<10).map { F.fieldFilter("f\($0)", "GREATER_THAN", one) } + [
                        F.fieldFilter(
                            "__name__", "GREATER_THAN",
                            #"{"referenceValue":"projects/demo/databases/(default)/documents/c/d"}"#)
                    ]).joined(separator: ",")))
        ),
        (
            "range on several fields",
            whereQuery(
                and(
                    F.fieldFilter("a", "GREATER_THAN", one), F.fieldFilter("b", "LESS_THAN", one),
                    F.fieldFilter("a", "NOT_EQUAL", two)))
        ),
        (
            "__name__ filter on another collection",
            whereQuery(
                F.fieldFilter(
                    "__name__", "EQUAL", #"{"referenceValue":"projects/demo/databases/(default)/documents/other/d"}"#))
        ),
        (
            "cursor as long as the stated order",
            F.query(
                #""where":\#(F.fieldFilter("b", "GREATER_THAN", one)),"orderBy":[{"field":{"fieldPath":"a"}},{"field":{"fieldPath":"b"}},{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[\#(one),\#(one),{"referenceValue":"projects/demo/databases/(default)/documents/c/d"}]}"#
            )
        ),
        // A cursor may name any path of the database: outside a plain query's collection it leaves nothing to
        // return; a collection group is scoped to one parent this way.
        (
            "__name__ cursor in another collection",
            F.query(
                #""orderBy":[{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[{"referenceValue":"projects/demo/databases/(default)/documents/other/d"}]}"#
            )
        ),
        (
            "group cursor naming a parent document",
            #"{"from":[{"collectionId":"c","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[{"referenceValue":"projects/demo/databases/(default)/documents/q/1"}]}}"#
        ),
        (
            "cursor naming a numeric ID",
            F.query(
                #""orderBy":[{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[{"referenceValue":"projects/demo/databases/(default)/documents/c/__id-9223372036854775808__"}]}"#
            )
        ),
        ("kindless query", #"{"from":[{"allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"}}]}"#),
        ("empty cursor", F.query(#""startAt":{}"#)),
        (
            "group cursor on a nested document",
            #"{"from":[{"collectionId":"c","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[{"referenceValue":"projects/demo/databases/(default)/documents/x/1/c/d"}]}}"#
        ),
        (
            "null members are absent",
            F.query(#""where":null,"orderBy":null,"startAt":null,"limit":null,"offset":null,"select":null"#)
        ),
        (
            "comparison with null and NaN",
            whereQuery(
                and(
                    F.fieldFilter("a", "LESS_THAN", #"{"nullValue":null}"#),
                    F.fieldFilter("b", "GREATER_THAN", #"{"doubleValue":"NaN"}"#)))
        ),
    ]

    @Test(arguments: accepted)
    func accepts(_ name: String, _ json: String) {
        let error = F.decodeError(json)
        #expect(error == nil, "\(name): \(error?.message ?? "")")
    }

    @Test func everyErrorIsInvalidArgumentWithAMessage() {
        for testCase in Self.cases {
            let error = F.decodeError(testCase.json, parent: testCase.parent)
            #expect(error != nil && !(error?.message.isEmpty ?? true), "\(testCase.name)")
        }
    }
}
