import Foundation
import HearthCore
import HearthTesting
import Testing

/// Issue #17, class 4: every composite index a `FAILED_PRECONDITION` names must, once declared and built, serve
/// the query that asked for it. A generator over query shapes (filters × orders × cursors × OR) runs each query
/// on a server without indexes, declares every index the errors name, restarts with them and runs the refused
/// queries again; each answer is also checked against HearthCore's matcher over the seeded documents.
@Suite("Composite indexes: every index an error names serves its query", .timeLimit(.minutes(6)))
struct IndexDeadEndTests {
    static let collection = "shapes"
    static let database = DatabaseName(project: "demo")

    /// Deterministic documents with missing fields, nulls, arrays and strings among the values.
    static let documents: [(id: String, fields: [String: Value])] = (0..<24).map { i in
        var fields: [String: Value] = [:]
        if i % 7 != 0 { fields["a"] = i % 11 == 0 ? .null : .integer(Int64(i % 4)) }
        fields["b"] = .integer(Int64(i * 5 % 6))
        fields["s"] = .string("s\(i % 5)")
        if i % 5 != 0 { fields["tags"] = .array([.integer(Int64(i % 3)), .integer(Int64((i + 1) % 4))]) }
        return (String(format: "d%02d", i), fields)
    }

    static let terms: [String] = [
        Q.field("a", "EQUAL", Q.int(1)), Q.field("a", "LESS_THAN", Q.int(2)),
        Q.field("a", "GREATER_THAN_OR_EQUAL", Q.int(1)), Q.field("a", "NOT_EQUAL", Q.int(2)),
        Q.field("a", "IN", Q.array([Q.int(1), Q.int(3)])), Q.field("a", "NOT_IN", Q.array([Q.int(0)])),
        Q.field("b", "EQUAL", Q.int(3)), Q.field("b", "GREATER_THAN", Q.int(2)),
        Q.field("b", "IN", Q.array([Q.int(0), Q.int(5)])), Q.field("tags", "ARRAY_CONTAINS", Q.int(1)),
        Q.field("tags", "ARRAY_CONTAINS_ANY", Q.array([Q.int(0), Q.int(2)])), Q.unary("a", "IS_NULL"),
        Q.field("s", "EQUAL", Q.string("s1")),
    ]

    /// Single terms, every AND and OR of two, and ORs of two ANDs (a sample).
    static let filters: [String?] = {
        var filters: [String?] = [nil]
        filters += terms.map { $0 }
        for (i, x) in terms.enumerated() {
            for y in terms[(i + 1)...] {
                filters.append(Q.and(x, y))
                filters.append(Q.or(x, y))
            }
        }
        for i in stride(from: 0, to: terms.count, by: 2) {
            let (w, x, y, z) = (
                terms[i], terms[(i + 3) % terms.count], terms[(i + 5) % terms.count], terms[(i + 8) % terms.count]
            )
            filters.append(Q.or(Q.and(w, x), Q.and(y, z)))
        }
        return filters
    }()

    static let orderings: [[(String, Bool)]] = [[], [("a", false)], [("b", true)], [("s", false), ("a", true)]]

    /// The cursor value positioned on each ordered field.
    static func cursorValue(_ field: String) -> String { field == "s" ? Q.string("s2") : Q.int(1) }

    /// Every query shape, as `StructuredQuery` JSON.
    static let queries: [String] = {
        var queries: [String] = []
        var variant = 0
        for filter in filters {
            for orders in orderings {
                variant += 1
                let orderBy = orders.map { Q.order($0.0, descending: $0.1) }
                let limit = variant % 3 == 0 ? 3 : nil
                queries.append(Q.query(collection, where: filter, orderBy: orderBy, limit: limit))
                if let first = orders.first {
                    let cursor = Q.cursor([cursorValue(first.0)], before: variant % 2 == 0)
                    queries.append(
                        Q.query(
                            collection, where: filter, orderBy: orderBy, startAt: variant % 4 < 2 ? cursor : nil,
                            endAt: variant % 4 < 2 ? nil : cursor))
                }
            }
        }
        return queries
    }()

    /// The IDs Firestore's semantics give for `json` over ``documents``, or `nil` when the query is invalid.
    static func expectedIDs(_ json: String) -> [String]? {
        guard
            let query = try? StructuredQuery(
                firestoreJSON: FS.json(json), at: "structuredQuery", database: database, parent: .root)
        else { return nil }
        let normalized = query.normalized()
        let matching = documents.map { (path: ResourcePath(segments: [collection, $0.id]), fields: $0.fields) }
            .filter { QueryMatcher.matches(path: $0.path, fields: $0.fields, query: normalized) }
            .sorted { QueryMatcher.compare($0, $1, orderBy: normalized.orderBy) < 0 }
        let page = matching.dropFirst(normalized.offset).prefix(normalized.limit ?? Int.max)
        return page.map { $0.path.lastSegment }
    }

    /// The index definition a FAILED_PRECONDITION message names (the JSON after "restart: ").
    static func requestedIndex(_ message: String) -> String? {
        guard let range = message.range(of: "and restart: ") else { return nil }
        return String(message[range.upperBound...])
    }

    static func seedDocuments(_ client: HTTPClient) async throws {
        let writes = Self.documents.map { document -> String in
            let fields = document.fields.map { name, value -> String in
                var json: [UInt8] = []
                value.appendFirestoreJSON(to: &json)
                return "\"\(name)\":" + String(decoding: json, as: UTF8.self)
            }
            let name = FS.name(Self.collection + "/" + document.id)
            return #"{"update":{"name":"\#(name)","fields":{\#(fields.joined(separator: ","))}}}"#
        }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
    }

    @Test("declaring each requested index makes its query run, with the matcher's answer")
    func everyRequestedIndexServes() async throws {
        // Outside development mode: there a missing index is refused.
        let first = try await HearthProcess.start(.production)
        try await Self.seedDocuments(first.client)

        var refused: [(query: String, expected: [String])] = []
        var requested: Set<String> = []
        var invalid = 0
        for query in Self.queries {
            let result = try await first.client.runQuery(query)
            guard let expected = Self.expectedIDs(query) else {
                invalid += 1
                expectError(result, 400, "INVALID_ARGUMENT")
                continue
            }
            if result.status == 200 {
                let answer = try await first.client.query(query)
                #expect(answer.ids == expected, "\(query)")
                continue
            }
            let message = expectError(result, 400, "FAILED_PRECONDITION")
            let index = try #require(Self.requestedIndex(message), "no index named: \(message)")
            requested.insert(index)
            refused.append((query, expected))
        }
        #expect(refused.count > 20, "the shapes should need composite indexes: \(refused.count) refused")
        #expect(invalid < Self.queries.count / 2)

        try await first.stop()
        let file = first.dataDirectory.url.appendingPathComponent("requested.indexes.json")
        try Data(#"{"indexes":[\#(requested.sorted().joined(separator: ","))]}"#.utf8).write(to: file)
        var declared = first.options
        declared.extraArguments += ["--indexes", file.path]
        let second = try await first.restart(declared)
        defer { _ = second }
        var stillRefused: [String] = []
        for (query, expected) in refused {
            var result = try await second.client.runQuery(query)
            var attempts = 0
            while result.status == 400, String(decoding: result.body, as: UTF8.self).contains("still building"),
                attempts < 200
            {
                try await Task.sleep(for: .milliseconds(50))
                attempts += 1
                result = try await second.client.runQuery(query)
            }
            guard result.status == 200 else {
                stillRefused.append("\(query) → \(String(decoding: result.body, as: UTF8.self))")
                continue
            }
            #expect(try await second.client.query(query).ids == expected, "\(query)")
        }
        #expect(
            stillRefused.isEmpty,
            "queries that ask again for an index once it is declared:\n\(stillRefused.prefix(5).joined(separator: "\n"))\n(\(stillRefused.count) in all)"
        )
        try await second.stop()
    }

    @Test(
        "development mode answers every shape without an index, as the matcher does (issue #20)")
    func devModeAnswersEveryShape() async throws {
        try await withHearth { server in
            try await Self.seedDocuments(server.client)
            var mismatches: [String] = []
            for query in Self.queries {
                let result = try await server.client.runQuery(query)
                guard let expected = Self.expectedIDs(query) else {
                    expectError(result, 400, "INVALID_ARGUMENT")
                    continue
                }
                let ids = try await server.client.query(query).ids
                if ids != expected { mismatches.append("\(query): \(ids) instead of \(expected)") }
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5).joined(separator: "\n")) (\(mismatches.count) in all)")
        }
    }

    @Test("the issue's minimal dead ends are served once their index is declared")
    func minimalCases() async throws {
        // (In development mode, which answers without indexes, this would prove nothing: run in production mode.)
        // The three shapes the random runs found, each with the index its error names.
        let cases: [(String, String)] = [
            (
                Q.query("dead1", where: Q.field("g", "EQUAL", Q.string("z")), orderBy: [Q.order("g"), Q.order("s")]),
                indexJSON("dead1", [("g", "ASCENDING"), ("s", "ASCENDING")])
            ),
            (
                Q.query(
                    "dead2", where: Q.or(Q.field("i", "EQUAL", Q.int(1)), Q.field("i", "LESS_THAN", Q.int(2))),
                    orderBy: [Q.order("s")]),
                indexJSON("dead2", [("s", "ASCENDING"), ("i", "ASCENDING")])
            ),
            (
                Q.query(
                    "dead3",
                    where: Q.or(
                        Q.and(Q.field("key", "EQUAL", Q.string("b")), Q.field("sort", "LESS_THAN_OR_EQUAL", Q.int(2))),
                        Q.and(Q.field("key", "NOT_EQUAL", Q.string("b")), Q.field("v", "GREATER_THAN", Q.int(4))))),
                indexJSON("dead3", [("key", "ASCENDING"), ("sort", "ASCENDING"), ("v", "ASCENDING")])
            ),
        ]
        let indexes = try TemporaryDirectory("hearth-dead-ends")
        defer { indexes.remove() }
        let file = indexes.url.appendingPathComponent("indexes.json")
        try Data(#"{"indexes":[\#(cases.map(\.1).joined(separator: ","))]}"#.utf8).write(to: file)
        var options = HearthProcess.Options.production
        options.extraArguments += ["--indexes", file.path]
        try await withHearth(options) { server in
            let docs = [
                ("dead1/x", #"{"g":\#(Q.string("z")),"s":\#(Q.int(1))}"#),
                ("dead1/y", #"{"g":\#(Q.string("y")),"s":\#(Q.int(0))}"#),
                ("dead2/x", #"{"i":\#(Q.int(1)),"s":\#(Q.int(2))}"#),
                ("dead2/y", #"{"i":\#(Q.int(5)),"s":\#(Q.int(1))}"#),
                ("dead2/z", #"{"i":\#(Q.int(0)),"s":\#(Q.int(0))}"#),
                ("dead3/x", #"{"key":\#(Q.string("b")),"sort":\#(Q.int(1)),"v":\#(Q.int(0))}"#),
                ("dead3/y", #"{"key":\#(Q.string("c")),"sort":\#(Q.int(9)),"v":\#(Q.int(5))}"#),
                ("dead3/z", #"{"key":\#(Q.string("c")),"sort":\#(Q.int(1)),"v":\#(Q.int(1))}"#),
            ]
            let writes = docs.map { #"{"update":{"name":"\#(FS.name($0.0))","fields":\#($0.1)}}"# }
            try expectOK(try await server.client.commit("[\(writes.joined(separator: ","))]"))
            let expected = [["x"], ["z", "x"], ["x", "y"]]
            for ((query, _), ids) in zip(cases, expected) {
                var result = try await server.client.runQuery(query)
                for _ in 0..<200 where String(decoding: result.body, as: UTF8.self).contains("still building") {
                    try await Task.sleep(for: .milliseconds(50))
                    result = try await server.client.runQuery(query)
                }
                try expectOK(result)
                #expect(try await server.client.queryIDs(query) == ids, "\(query)")
            }
        }
    }
}
