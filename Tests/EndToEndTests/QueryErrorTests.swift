import Foundation
import HearthCore
import HearthTesting
import Testing

/// Malformed `:runQuery` requests answer 400 INVALID_ARGUMENT, as Firestore does.
@Suite("Query errors", .sharedHearth, .timeLimit(.minutes(2)))
struct QueryErrorTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    @Test(
        "malformed structuredQuery pieces are INVALID_ARGUMENT",
        arguments: [
            ("unknown member", #"{"from":[{"collectionId":"c"}],"bogus":1}"#),
            (
                "unknown member in a filter",
                #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"},"extra":true}}}"#
            ),
            ("bad operator", #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("a", "LIKE", Q.int(1)))}"#),
            ("bad unary operator", #"{"from":[{"collectionId":"c"}],"where":\#(Q.unary("a", "IS_EMPTY"))}"#),
            (
                "bad composite operator",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.composite("XOR", [Q.field("a", "EQUAL", Q.int(1))]))}"#
            ),
            (
                "IN with 31 values",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("a", "IN", Q.array((0..<31).map { Q.int($0) })))}"#
            ),
            (
                "ARRAY_CONTAINS_ANY with 31 values",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("a", "ARRAY_CONTAINS_ANY", Q.array((0..<31).map { Q.int($0) })))}"#
            ),
            (
                "NOT_IN with 11 values",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("a", "NOT_IN", Q.array((0..<11).map { Q.int($0) })))}"#
            ),
            ("IN with an empty list", #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("a", "IN", Q.array([])))}"#),
            ("IN without a list", #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("a", "IN", Q.int(1)))}"#),
            (
                "two ARRAY_CONTAINS",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.and(Q.field("a", "ARRAY_CONTAINS", Q.int(1)), Q.field("b", "ARRAY_CONTAINS", Q.int(2))))}"#
            ),
            (
                "ARRAY_CONTAINS with ARRAY_CONTAINS_ANY",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.and(Q.field("a", "ARRAY_CONTAINS", Q.int(1)), Q.field("b", "ARRAY_CONTAINS_ANY", Q.array([Q.int(2)]))))}"#
            ),
            (
                "NOT_IN with IN",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.and(Q.field("a", "NOT_IN", Q.array([Q.int(1)])), Q.field("b", "IN", Q.array([Q.int(2)]))))}"#
            ),
            (
                "cursor longer than the orderBy",
                #"{"from":[{"collectionId":"c"}],"orderBy":[\#(Q.order("a"))],"startAt":\#(Q.cursor([Q.int(1), Q.ref("c/x"), Q.int(3)], before: true))}"#
            ),
            (
                "cursor values without orderBy",
                #"{"from":[{"collectionId":"c"}],"endAt":\#(Q.cursor([Q.int(1), Q.int(2)], before: true))}"#
            ),
            (
                "__name__ cursor that is not a reference",
                #"{"from":[{"collectionId":"c"}],"orderBy":[\#(Q.order("__name__"))],"startAt":\#(Q.cursor([Q.string("x")], before: true))}"#
            ),
            (
                "cursor values for the implicit __name__ order only",
                #"{"from":[{"collectionId":"c"}],"startAt":\#(Q.cursor([Q.ref("c/x")], before: true))}"#
            ),
            (
                "__name__ filter that is not a reference",
                #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("__name__", "EQUAL", Q.string("x")))}"#
            ),
            ("negative limit", #"{"from":[{"collectionId":"c"}],"limit":-1}"#),
            ("negative offset", #"{"from":[{"collectionId":"c"}],"offset":-1}"#),
            ("no from", #"{"where":\#(Q.field("a", "EQUAL", Q.int(1)))}"#),
            ("two from selectors", #"{"from":[{"collectionId":"c"},{"collectionId":"d"}]}"#),
            ("collectionId with a slash", #"{"from":[{"collectionId":"c/d/e"}]}"#),
            (
                "orderBy the same field twice",
                #"{"from":[{"collectionId":"c"}],"orderBy":[\#(Q.order("a")),\#(Q.order("a", descending: true))]}"#
            ),
            (
                "bad direction",
                #"{"from":[{"collectionId":"c"}],"orderBy":[{"field":{"fieldPath":"a"},"direction":"SIDEWAYS"}]}"#
            ),
            (
                "empty composite filter",
                #"{"from":[{"collectionId":"c"}],"where":{"compositeFilter":{"op":"AND","filters":[]}}}"#
            ),
            (
                "filter with two kinds",
                #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"}},"unaryFilter":{"field":{"fieldPath":"a"},"op":"IS_NULL"}}}"#
            ),
            ("invalid field path", #"{"from":[{"collectionId":"c"}],"where":\#(Q.field("a..b", "EQUAL", Q.int(1)))}"#),
        ])
    func malformed(_ label: String, _ query: String) async throws {
        expectError(try await client.runQuery(query), 400, "INVALID_ARGUMENT")
    }

    @Test("the limits are inclusive: IN with 30 values and NOT_IN with 10 values run")
    func limitsAreInclusive() async throws {
        let c = FS.unique("limits")
        try await client.create(c, id: "x", fields: #"{"a":\#(Q.int(29))}"#)
        #expect(
            try await client.queryIDs(Q.query(c, where: Q.field("a", "IN", Q.array((0..<30).map { Q.int($0) })))) == [
                "x"
            ])
        #expect(
            try await client.queryIDs(Q.query(c, where: Q.field("a", "NOT_IN", Q.array((0..<10).map { Q.int($0) }))))
                == ["x"])
        #expect(
            try await client.queryIDs(
                Q.query(
                    c, orderBy: [Q.order("a"), Q.order("__name__")],
                    startAt: Q.cursor([Q.int(29), Q.ref("\(c)/x")], before: true))) == ["x"],
            "a cursor as long as the stated orderBy (a, __name__)")
    }

    @Test(
        "a query body without structuredQuery, with unknown members, or with a bad explainOptions is INVALID_ARGUMENT")
    func malformedBody() async throws {
        let path = "\(FS.root()):runQuery"
        expectError(try await client.request("POST", path, json: "{}"), 400, "INVALID_ARGUMENT")
        expectError(
            try await client.request("POST", path, json: #"{"structuredQuery":\#(Q.query("c")),"nope":1}"#), 400,
            "INVALID_ARGUMENT")
        expectError(
            try await client.request(
                "POST", path, json: #"{"structuredQuery":\#(Q.query("c")),"explainOptions":{"x":1}}"#),
            400, "INVALID_ARGUMENT")
        expectError(try await client.request("POST", path, json: "[1]"), 400, "INVALID_ARGUMENT")
        expectError(try await client.request("POST", path, json: "{"), 400, "INVALID_ARGUMENT")
    }

    @Test("a query whose parent is a collection is INVALID_ARGUMENT")
    func collectionParent() async throws {
        let c = FS.unique("parent")
        try await client.create(c, id: "x", fields: "{}")
        expectError(
            try await client.request("POST", "\(FS.path(c)):runQuery", json: #"{"structuredQuery":\#(Q.query(c))}"#),
            400,
            "INVALID_ARGUMENT")
        expectError(
            try await client.request(
                "POST", "\(FS.path("\(c)/x/sub")):runQuery", json: #"{"structuredQuery":\#(Q.query("sub"))}"#),
            400, "INVALID_ARGUMENT")
        expectError(
            try await client.request(
                "POST", "\(FS.path(c)):runAggregationQuery",
                json:
                    #"{"structuredAggregationQuery":{"structuredQuery":\#(Q.query(c)),"aggregations":[{"count":{}}]}}"#),
            400, "INVALID_ARGUMENT")
    }
}
