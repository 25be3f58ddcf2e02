import Foundation
import HearthCore
import HearthTesting
import Testing

/// One case of issue #17: documents (ID → fields JSON), a query, and production Firestore's answer — the IDs
/// it returns, or its aggregate fields.
struct ParityCase: Sendable, CustomTestStringConvertible {
    let name: String
    let documents: [(String, String)]
    /// Builds the structured query for the collection the case is seeded in.
    let query: @Sendable (String) -> String
    /// The aggregations JSON, or nil for a plain query.
    let aggregations: String?
    /// For a plain query, the IDs in order; for an aggregation, the `aggregateFields` JSON.
    let expected: String

    var testDescription: String { name }
}

/// Issue #17's minimal cases against Hearth's real server, with the answers production Firestore gives.
@Suite("Production parity", .sharedHearth, .timeLimit(.minutes(2)))
struct ProductionParityTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    static func ids(
        _ name: String, _ documents: [(String, String)], _ query: @escaping @Sendable (String) -> String,
        _ ids: [String]
    )
        -> ParityCase
    {
        ParityCase(
            name: name, documents: documents, query: query, aggregations: nil, expected: ids.joined(separator: ","))
    }

    static func aggregate(
        _ name: String, _ documents: [(String, String)], _ query: @escaping @Sendable (String) -> String,
        _ aggregations: String, _ expected: String
    ) -> ParityCase {
        ParityCase(name: name, documents: documents, query: query, aggregations: aggregations, expected: expected)
    }

    /// Class 1: only documents holding every aggregated field take part, count too; limit applies after.
    static let aggregationCases: [ParityCase] = [
        aggregate(
            "avg and count over {} alone", [("a", "{}")], { Q.query($0) },
            #"[{"alias":"avg","avg":{"field":{"fieldPath":"i"}}},{"alias":"count","count":{}}]"#,
            #"{"avg":{"nullValue":null},"count":{"integerValue":"0"}}"#),
        aggregate(
            "sum limit 1 skips the document without the field",
            [("a", "{}"), ("b", #"{"i":\#(Q.int(9_007_199_254_740_993))}"#)],
            { Q.query($0, limit: 1) }, #"[{"alias":"s","sum":{"field":{"fieldPath":"i"}}}]"#,
            #"{"s":{"integerValue":"9007199254740993"}}"#),
        aggregate(
            "the SDK's aggregations on documents with all aggregated fields",
            [
                ("a", #"{"pages":\#(Q.int(100)),"year":\#(Q.int(1980))}"#),
                ("b", #"{"pages":\#(Q.int(50))}"#),
                ("c", #"{"pages":\#(Q.int(100)),"year":\#(Q.int(1980))}"#),
                ("d", #"{"pages":\#(Q.int(50))}"#),
                ("e", #"{"pages":\#(Q.int(100)),"year":\#(Q.int(2022))}"#),
            ],
            { Q.query($0) },
            #"[{"alias":"total","sum":{"field":{"fieldPath":"pages"}}},{"alias":"years","avg":{"field":{"fieldPath":"year"}}},{"alias":"count","count":{}}]"#,
            #"{"total":{"integerValue":"300"},"years":{"doubleValue":1994.0},"count":{"integerValue":"3"}}"#),
        aggregate(
            "a non-numeric value still counts as having the field", [("a", #"{"i":\#(Q.string("x"))}"#), ("b", "{}")],
            { Q.query($0) }, #"[{"alias":"s","sum":{"field":{"fieldPath":"i"}}},{"alias":"n","count":{}}]"#,
            #"{"s":{"integerValue":"0"},"n":{"integerValue":"1"}}"#),
        aggregate(
            "count alone still counts every document", [("a", "{}"), ("b", #"{"i":\#(Q.int(1))}"#)], { Q.query($0) },
            #"[{"alias":"n","count":{}}]"#, #"{"n":{"integerValue":"2"}}"#),
    ]

    /// Class 2: `<`, `<=`, `>`, `>=` never match null or NaN (values or operands); `==` does.
    static let rangeCases: [ParityCase] = {
        let docs = [
            ("nan", #"{"d":\#(Q.double(.nan)),"b":\#(Q.null)}"#), ("one", #"{"d":\#(Q.double(1)),"b":\#(Q.int(1))}"#),
        ]
        return [
            ids("NaN below 42.5", docs, { Q.query($0, where: Q.field("d", "LESS_THAN", Q.double(42.5))) }, ["one"]),
            ids(
                "NaN <= 42.5, ordered by d", docs,
                { Q.query($0, where: Q.field("d", "LESS_THAN_OR_EQUAL", Q.double(42.5)), orderBy: [Q.order("d")]) },
                ["one"]),
            ids("b >= null", docs, { Q.query($0, where: Q.field("b", "GREATER_THAN_OR_EQUAL", Q.null)) }, []),
            ids("d > NaN", docs, { Q.query($0, where: Q.field("d", "GREATER_THAN", Q.double(.nan))) }, []),
            ids("d <= NaN", docs, { Q.query($0, where: Q.field("d", "LESS_THAN_OR_EQUAL", Q.double(.nan))) }, []),
            ids("d == NaN still matches", docs, { Q.query($0, where: Q.unary("d", "IS_NAN")) }, ["nan"]),
            aggregate(
                "count of d < 42.5 (an exact index count)", docs,
                { Q.query($0, where: Q.field("d", "LESS_THAN", Q.double(42.5))) }, #"[{"alias":"n","count":{}}]"#,
                #"{"n":{"integerValue":"1"}}"#),
            aggregate(
                "sum of d over d < 42.5", docs, { Q.query($0, where: Q.field("d", "LESS_THAN", Q.double(42.5))) },
                #"[{"alias":"s","sum":{"field":{"fieldPath":"d"}}}]"#, #"{"s":{"doubleValue":1.0}}"#),
            aggregate(
                "count of b >= null", docs, { Q.query($0, where: Q.field("b", "GREATER_THAN_OR_EQUAL", Q.null)) },
                #"[{"alias":"n","count":{}}]"#, #"{"n":{"integerValue":"0"}}"#),
        ]
    }()

    /// Class 3: null and NaN operands of IN, ARRAY_CONTAINS and ARRAY_CONTAINS_ANY match nothing.
    static let membershipCases: [ParityCase] = {
        let docs = [
            ("null", #"{"zip":\#(Q.null),"tags":\#(Q.array([Q.null, Q.double(.nan)]))}"#),
            ("nan", #"{"zip":\#(Q.double(.nan))}"#),
            ("98101", #"{"zip":\#(Q.int(98101)),"tags":\#(Q.array([Q.int(1)]))}"#),
        ]
        return [
            ids("zip in [null]", docs, { Q.query($0, where: Q.field("zip", "IN", Q.array([Q.null]))) }, []),
            ids(
                "zip in [98101, null]", docs,
                { Q.query($0, where: Q.field("zip", "IN", Q.array([Q.int(98101), Q.null]))) },
                ["98101"]),
            ids("zip in [NaN]", docs, { Q.query($0, where: Q.field("zip", "IN", Q.array([Q.double(.nan)]))) }, []),
            ids(
                "tags array-contains null", docs, { Q.query($0, where: Q.field("tags", "ARRAY_CONTAINS", Q.null)) }, []),
            ids(
                "tags array-contains NaN", docs,
                { Q.query($0, where: Q.field("tags", "ARRAY_CONTAINS", Q.double(.nan))) }, []),
            ids(
                "tags array-contains-any [null, NaN, 1]", docs,
                {
                    Q.query(
                        $0, where: Q.field("tags", "ARRAY_CONTAINS_ANY", Q.array([Q.null, Q.double(.nan), Q.int(1)])))
                },
                ["98101"]),
            ids(
                "zip in [98101, null] ordered by zip", docs,
                {
                    Q.query(
                        $0, where: Q.field("zip", "IN", Q.array([Q.int(98101), Q.null])), orderBy: [Q.order("zip")])
                },
                ["98101"]),
            aggregate(
                "count of zip in [null]", docs, { Q.query($0, where: Q.field("zip", "IN", Q.array([Q.null]))) },
                #"[{"alias":"n","count":{}}]"#, #"{"n":{"integerValue":"0"}}"#),
            ids(
                "raw EQUAL null matches the null", docs, { Q.query($0, where: Q.field("zip", "EQUAL", Q.null)) },
                ["null"]),
        ]
    }()

    @Test("class 1: aggregations", arguments: aggregationCases)
    func aggregations(_ row: ParityCase) async throws { try await check(row) }

    @Test("class 2: range filters and null/NaN", arguments: rangeCases)
    func ranges(_ row: ParityCase) async throws { try await check(row) }

    @Test("class 3: membership operands null/NaN", arguments: membershipCases)
    func membership(_ row: ParityCase) async throws { try await check(row) }

    /// Issue #16: Google's Python REST transport sends enums as numbers; the answer is the one names give.
    @Test("numeric enums answer as names do")
    func numericEnums() async throws {
        let c = FS.unique("enums")
        let docs = (1...4).map { n in
            #"{"update":{"name":"\#(FS.name("\(c)/d\(n)"))","fields":{"n":\#(Q.int(Int64(n)))}}}"#
        }
        try expectOK(try await client.commit("[\(docs.joined(separator: ","))]"))
        let names =
            #"{"from":[{"collectionId":"\#(c)"}],"where":{"compositeFilter":{"op":"OR","filters":[{"fieldFilter":{"field":{"fieldPath":"n"},"op":"LESS_THAN","value":\#(Q.int(2))}},{"unaryFilter":{"field":{"fieldPath":"n"},"op":"IS_NOT_NULL"}}]}},"orderBy":[{"field":{"fieldPath":"n"},"direction":"DESCENDING"}]}"#
        let numbers =
            #"{"from":[{"collectionId":"\#(c)"}],"where":{"compositeFilter":{"op":2,"filters":[{"fieldFilter":{"field":{"fieldPath":"n"},"op":1,"value":\#(Q.int(2))}},{"unaryFilter":{"field":{"fieldPath":"n"},"op":5}}]}},"orderBy":[{"field":{"fieldPath":"n"},"direction":2}]}"#
        let expected = try await client.queryIDs(names)
        #expect(expected == ["d4", "d3", "d2", "d1"])
        #expect(try await client.queryIDs(numbers) == expected)
    }

    private func check(_ row: ParityCase) async throws {
        let c = FS.unique("parity")
        let writes = row.documents.map { id, fields in
            #"{"update":{"name":"\#(FS.name("\(c)/\(id)"))","fields":\#(fields)}}"#
        }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
        if let aggregations = row.aggregations {
            let element = try await client.aggregate(row.query(c), aggregations: aggregations)
            expectJSON(
                element["result"]?["aggregateFields"].map(FS.canonicalTimestamps), FS.json(row.expected), row.name)
        } else {
            let ids = try await client.queryIDs(row.query(c))
            #expect(ids.joined(separator: ",") == row.expected, "\(row.name)")
        }
    }
}
