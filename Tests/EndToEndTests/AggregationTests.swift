import Foundation
import HearthCore
import HearthTesting
import Testing

/// `:runAggregationQuery`: count (upTo), sum, avg, aliases, over filtered queries.
@Suite("Aggregations", .sharedHearth, .timeLimit(.minutes(2)))
struct AggregationTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    /// Six documents: `i` integers only, `m` mixed (int, double, string, null, bool), `big` overflowing integers,
    /// `d` doubles only, `s` strings only, `g` a group.
    private func seed() async throws -> String {
        let c = FS.unique("agg")
        let docs: [(String, String)] = [
            (
                "a",
                #"{"g":\#(Q.string("A")),"i":\#(Q.int(1)),"m":\#(Q.int(1)),"big":\#(Q.int(.max)),"d":\#(Q.double(0.5)),"s":\#(Q.string("x"))}"#
            ),
            (
                "b",
                #"{"g":\#(Q.string("A")),"i":\#(Q.int(2)),"m":\#(Q.double(2.5)),"big":\#(Q.int(1)),"d":\#(Q.double(0.25))}"#
            ),
            ("c", #"{"g":\#(Q.string("B")),"i":\#(Q.int(3)),"m":\#(Q.string("7"))}"#),
            ("e", #"{"g":\#(Q.string("B")),"m":\#(Q.null),"i":\#(Q.null)}"#),
            ("f", #"{"g":\#(Q.string("A")),"m":\#(Q.bool(true))}"#),
            ("h", #"{"g":\#(Q.string("C")),"m":\#(Q.array([Q.int(5)])),"i":\#(Q.int(-6))}"#),
        ]
        let writes = docs.map { id, fields in #"{"update":{"name":"\#(FS.name("\(c)/\(id)"))","fields":\#(fields)}}"# }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
        return c
    }

    private func fields(
        _ query: String, _ aggregations: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue? {
        let element = try await client.aggregate(query, aggregations: aggregations, sourceLocation: sourceLocation)
        // A whole double may be written as 5 or 5.0: compare doubles as doubles.
        return element["result"]?["aggregateFields"].map(FS.canonicalTimestamps)
    }

    @Test("count, count with upTo below, at and above the total, and over an empty result")
    func count() async throws {
        let c = try await seed()
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"n","count":{}}]"#), FS.json(#"{"n":{"integerValue":"6"}}"#))
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"n","count":{"upTo":"4"}}]"#),
            FS.json(#"{"n":{"integerValue":"4"}}"#))
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"n","count":{"upTo":6}}]"#),
            FS.json(#"{"n":{"integerValue":"6"}}"#))
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"n","count":{"upTo":{"value":"100"}}}]"#),
            FS.json(#"{"n":{"integerValue":"6"}}"#))
        expectJSON(
            try await fields(Q.query(c, where: Q.field("g", "EQUAL", Q.string("Z"))), #"[{"alias":"n","count":{}}]"#),
            FS.json(#"{"n":{"integerValue":"0"}}"#))
        expectJSON(
            try await fields(Q.query(FS.unique("none")), #"[{"alias":"n","count":{}}]"#),
            FS.json(#"{"n":{"integerValue":"0"}}"#))
        expectJSON(
            try await fields(Q.query(c, limit: 2), #"[{"alias":"n","count":{}}]"#),
            FS.json(#"{"n":{"integerValue":"2"}}"#),
            "the query's limit applies")
        expectJSON(
            try await fields(Q.query(c, orderBy: [Q.order("d")]), #"[{"alias":"n","count":{}}]"#),
            FS.json(#"{"n":{"integerValue":"2"}}"#), "documents without an ordered field are not counted")
    }

    @Test(
        "sum: integers stay integers; doubles or mixed give a double; overflow gives a double; non-numbers are ignored")
    func sum() async throws {
        let c = try await seed()
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"s","sum":{"field":{"fieldPath":"i"}}}]"#),
            FS.json(#"{"s":{"integerValue":"0"}}"#), "1 + 2 + 3 - 6")
        expectJSON(
            try await fields(
                Q.query(c, where: Q.field("g", "IN", Q.array([Q.string("A"), Q.string("B")]))),
                #"[{"alias":"s","sum":{"field":{"fieldPath":"i"}}}]"#),
            FS.json(#"{"s":{"integerValue":"6"}}"#))
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"s","sum":{"field":{"fieldPath":"d"}}}]"#),
            FS.json(#"{"s":{"doubleValue":0.75}}"#))
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"s","sum":{"field":{"fieldPath":"m"}}}]"#),
            FS.json(#"{"s":{"doubleValue":3.5}}"#), "1 + 2.5; string, null, boolean and array ignored")
        expectJSON(
            FS.canonicalTimestamps(
                try await fields(Q.query(c), #"[{"alias":"s","sum":{"field":{"fieldPath":"big"}}}]"#) ?? .null),
            FS.json(#"{"s":{"doubleValue":9223372036854775808.0}}"#), "Int64.max + 1 overflows to a double")
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"s","sum":{"field":{"fieldPath":"s"}}}]"#),
            FS.json(#"{"s":{"integerValue":"0"}}"#), "nothing numeric sums to integer 0")
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"s","sum":{"field":{"fieldPath":"absent"}}}]"#),
            FS.json(#"{"s":{"integerValue":"0"}}"#))
    }

    @Test("avg is a double over the numeric values, or null when there is none")
    func average() async throws {
        let c = try await seed()
        expectJSON(
            FS.canonicalTimestamps(
                try await fields(
                    Q.query(c, where: Q.field("g", "IN", Q.array([Q.string("A"), Q.string("B")]))),
                    #"[{"alias":"a","avg":{"field":{"fieldPath":"i"}}}]"#) ?? .null),
            FS.json(#"{"a":{"doubleValue":2.0}}"#), "integers average to a double")
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"a","avg":{"field":{"fieldPath":"m"}}}]"#),
            FS.json(#"{"a":{"doubleValue":1.75}}"#))
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"a","avg":{"field":{"fieldPath":"d"}}}]"#),
            FS.json(#"{"a":{"doubleValue":0.375}}"#))
        expectJSON(
            try await fields(Q.query(c), #"[{"alias":"a","avg":{"field":{"fieldPath":"s"}}}]"#),
            FS.json(#"{"a":{"nullValue":null}}"#))
        expectJSON(
            try await fields(
                Q.query(c, where: Q.field("g", "EQUAL", Q.string("Z"))),
                #"[{"alias":"a","avg":{"field":{"fieldPath":"i"}}}]"#),
            FS.json(#"{"a":{"nullValue":null}}"#))
        expectJSON(
            FS.canonicalTimestamps(
                try await fields(Q.query(c), #"[{"alias":"a","avg":{"field":{"fieldPath":"big"}}}]"#) ?? .null),
            FS.json(#"{"a":{"doubleValue":4611686018427387904.0}}"#))
    }

    /// Only documents holding every sum/avg field take part, in the counts too (production; issue #17): f has
    /// no `i` or `d`, c, e and h no `d`.
    @Test("several aggregations with aliases in one request, over a filtered query; default aliases field_N")
    func aliases() async throws {
        let c = try await seed()
        let element = try await client.aggregate(
            Q.query(c, where: Q.field("g", "EQUAL", Q.string("A"))),
            aggregations:
                #"[{"alias":"total","count":{}},{"alias":"sumI","sum":{"field":{"fieldPath":"i"}}},{"alias":"avgM","avg":{"field":{"fieldPath":"m"}}},{"alias":"capped","count":{"upTo":"2"}},{"alias":"sumD","sum":{"field":{"fieldPath":"d"}}}]"#
        )
        expectJSON(
            element["result"]?["aggregateFields"].map(FS.canonicalTimestamps),
            FS.json(
                #"{"total":{"integerValue":"2"},"sumI":{"integerValue":"3"},"avgM":{"doubleValue":1.75},"capped":{"integerValue":"2"},"sumD":{"doubleValue":0.75}}"#
            ))
        #expect(element.objectValue?.keys.sorted() == ["readTime", "result"], "\(element.jsonString)")

        expectJSON(
            try await fields(
                Q.query(c),
                #"[{"count":{}},{"alias":"s","sum":{"field":{"fieldPath":"i"}}},{"avg":{"field":{"fieldPath":"d"}}}]"#),
            FS.json(#"{"field_1":{"integerValue":"2"},"s":{"integerValue":"3"},"field_2":{"doubleValue":0.375}}"#),
            "unnamed aggregations are named field_1, field_2, …")
    }

    @Test("aggregations over range, OR and subcollection queries")
    func overQueries() async throws {
        let c = try await seed()
        expectJSON(
            try await fields(
                Q.query(c, where: Q.field("i", "GREATER_THAN", Q.int(1))),
                #"[{"alias":"n","count":{}},{"alias":"s","sum":{"field":{"fieldPath":"i"}}}]"#),
            FS.json(#"{"n":{"integerValue":"2"},"s":{"integerValue":"5"}}"#))
        expectJSON(
            try await fields(
                Q.query(c, where: Q.or(Q.field("g", "EQUAL", Q.string("C")), Q.field("i", "EQUAL", Q.int(1)))),
                #"[{"alias":"n","count":{}},{"alias":"s","sum":{"field":{"fieldPath":"i"}}}]"#),
            FS.json(#"{"n":{"integerValue":"2"},"s":{"integerValue":"-5"}}"#))
        let parent = "\(c)/a"
        try await client.create("\(parent)/sub", id: "x", fields: #"{"v":\#(Q.int(4))}"#)
        try await client.create("\(parent)/sub", id: "y", fields: #"{"v":\#(Q.int(6))}"#)
        try await client.create("\(c)/b/sub", id: "z", fields: #"{"v":\#(Q.int(100))}"#)
        let element = try await client.aggregate(
            Q.query("sub"),
            aggregations: #"[{"alias":"n","count":{}},{"alias":"a","avg":{"field":{"fieldPath":"v"}}}]"#,
            parent: parent)
        expectJSON(
            element["result"]?["aggregateFields"].map(FS.canonicalTimestamps),
            FS.json(#"{"n":{"integerValue":"2"},"a":{"doubleValue":5.0}}"#))
    }

    @Test(
        "malformed aggregations are INVALID_ARGUMENT",
        arguments: [
            #"[]"#,
            #"[{"count":{}},{"count":{}},{"count":{}},{"count":{}},{"count":{}},{"count":{}}]"#,
            #"[{"alias":"x","count":{}},{"alias":"x","count":{}}]"#,
            #"[{"count":{"upTo":"0"}}]"#,
            #"[{"count":{"upTo":"-1"}}]"#,
            #"[{"sum":{}}]"#,
            #"[{"avg":{"field":{"fieldPath":"__name__"}}}]"#,
            #"[{"count":{},"sum":{"field":{"fieldPath":"a"}}}]"#,
            #"[{"max":{"field":{"fieldPath":"a"}}}]"#,
        ])
    func malformed(_ aggregations: String) async throws {
        expectError(try await client.runAggregation(Q.query("c"), aggregations: aggregations), 400, "INVALID_ARGUMENT")
    }

    @Test("an aggregation over a query that needs a missing composite index is FAILED_PRECONDITION")
    func missingIndex() async throws {
        // Outside development mode, which would answer it without the index.
        try await withHearth(.production) { server in
            let client = server.client
            let c = FS.unique("agg")
            try await client.create(c, id: "a", fields: #"{"g":\#(Q.string("A")),"i":\#(Q.int(1))}"#)
            expectError(
                try await client.runAggregation(
                    Q.query(c, where: Q.field("g", "EQUAL", Q.string("A")), orderBy: [Q.order("i")]),
                    aggregations: #"[{"count":{}}]"#),
                400, "FAILED_PRECONDITION", messageContains: [indexJSON(c, [("g", "ASCENDING"), ("i", "ASCENDING")])]
            )
        }
    }
}
