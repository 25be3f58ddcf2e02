import Foundation
import HearthCore
import HearthTesting
import Testing

/// Queries read O(result) index entries and documents, not O(collection): checked through explainMetrics on a
/// collection of 20,000 documents, seeded once for the suite.
@Suite(
    "Query cost follows the result size",
    .withIndexes(
        "scale",
        "[" + indexJSON("big", [("owner", "ASCENDING"), ("date", "DESCENDING")]) + "]"),
    .serialized, .timeLimit(.minutes(4)))
struct QueryScaleTests {
    static let count = 20_000
    /// Owners: u0…u9 round robin, except every 4,000th document (5 of them), owned by "rare".
    static func owner(_ i: Int) -> String { i % 4_000 == 7 ? "rare" : "u\(i % 10)" }

    let client: HTTPClient
    init() async throws {
        client = try SharedHearth.server.client
        try await Self.seedOnce(client)
    }

    private static let seeded = Locked(false)

    private static func seedOnce(_ client: HTTPClient) async throws {
        guard !seeded.value else { return }
        try await client.seed(
            "big", count: count, id: { String(format: "d%05d", $0) },
            fields: { i in
                #"{"owner":\#(Q.string(owner(i))),"date":\#(Q.int(Int64(i))),"title":\#(Q.string("todo \(i)"))}"#
            })
        // The index is built in the background (or kept up to date as the commits land): wait until it serves.
        let query = Q.query(
            "big", where: Q.field("owner", "EQUAL", Q.string("u3")), orderBy: [Q.order("date", descending: true)],
            limit: 1)
        let deadline = ContinuousClock.now + .seconds(60)
        while try await client.runQuery(query).status != 200 {
            if ContinuousClock.now >= deadline { throw HarnessError("the composite index did not become ready") }
            try await Task.sleep(for: .milliseconds(50))
        }
        seeded.withLock { $0 = true }
    }

    private func explained(
        _ query: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> QueryAnswer {
        let answer = try await client.query(
            query, extra: #""explainOptions":{"analyze":true}"#, sourceLocation: sourceLocation)
        #expect(answer.explain != nil, "no explainMetrics", sourceLocation: sourceLocation)
        return answer
    }

    @Test("equality + orderBy + limit 20 through the composite index reads about 20 entries and documents")
    func equalityOrderLimit() async throws {
        let answer = try await explained(
            Q.query(
                "big", where: Q.field("owner", "EQUAL", Q.string("u3")), orderBy: [Q.order("date", descending: true)],
                limit: 20))
        let expected = (0..<Self.count).filter { Self.owner($0) == "u3" }.suffix(20).reversed()
        #expect(answer.ids == expected.map { String(format: "d%05d", $0) })
        #expect(answer.plans.contains { $0.contains("composite") }, "\(answer.plans)")
        let entries = try #require(answer.indexEntriesScanned, "\(String(describing: answer.explain))")
        let documents = try #require(answer.documentsScanned, "\(String(describing: answer.explain))")
        #expect(entries >= 20 && entries <= 30, "index_entries_scanned \(entries)")
        #expect(documents >= 20 && documents <= 30, "documents_scanned \(documents)")
        #expect(answer.explain?["executionStats"]?["resultsReturned"] == .string("20"))

    }

    @Test(
        "a page from a cursor, or a __name__ range, costs about its size (cursors and __name__ ranges seek in the index)"
    )
    func cursorPageCost() async throws {
        let first = try await explained(
            Q.query(
                "big", where: Q.field("owner", "EQUAL", Q.string("u3")), orderBy: [Q.order("date", descending: true)],
                limit: 20))
        let last = try #require(first.documents.last)
        let lastDate = try #require(last["fields"]?["date"])
        let all = (0..<Self.count).filter { Self.owner($0) == "u3" }.reversed().map { String(format: "d%05d", $0) }
        var cursor = (date: lastDate.jsonString, name: last["name"]?.stringValue ?? "")
        for page in 1..<5 {
            let next = try await explained(
                Q.query(
                    "big", where: Q.field("owner", "EQUAL", Q.string("u3")),
                    orderBy: [Q.order("date", descending: true), Q.order("__name__", descending: true)],
                    startAt: #"{"values":[\#(cursor.date),{"referenceValue":"\#(cursor.name)"}],"before":false}"#,
                    limit: 20))
            #expect(next.ids == Array(all[(page * 20)..<(page * 20 + 20)]), "page \(page)")
            #expect((next.indexEntriesScanned ?? .max) <= 30, "page \(page): \(String(describing: next.explain))")
            #expect((next.documentsScanned ?? .max) <= 30, "page \(page): \(String(describing: next.explain))")
            let end = try #require(next.documents.last)
            cursor = (try #require(end["fields"]?["date"]).jsonString, end["name"]?.stringValue ?? "")
        }
        let deep = try await explained(
            Q.query(
                "big", where: Q.field("date", "GREATER_THAN_OR_EQUAL", Q.int(0)), orderBy: [Q.order("date")],
                startAt: Q.cursor([Q.int(19_000)], before: true), limit: 10))
        #expect(deep.ids == (19_000..<19_010).map { String(format: "d%05d", $0) })
        #expect((deep.indexEntriesScanned ?? .max) <= 15, "single-field index: \(String(describing: deep.explain))")
        let named = try await explained(
            Q.query("big", where: Q.field("__name__", "GREATER_THAN_OR_EQUAL", Q.ref("big/d19000")), limit: 10))
        #expect(named.ids == (19_000..<19_010).map { String(format: "d%05d", $0) })
        #expect((named.indexEntriesScanned ?? .max) <= 15, "__name__ range: \(String(describing: named.explain))")
    }

    @Test("an equality on a rare value reads only its matches")
    func rareEquality() async throws {
        let answer = try await explained(Q.query("big", where: Q.field("owner", "EQUAL", Q.string("rare"))))
        #expect(answer.ids == ["d00007", "d04007", "d08007", "d12007", "d16007"])
        #expect((answer.indexEntriesScanned ?? .max) <= 6, "\(String(describing: answer.explain))")
        #expect((answer.documentsScanned ?? .max) <= 6, "\(String(describing: answer.explain))")
        let none = try await explained(Q.query("big", where: Q.field("owner", "EQUAL", Q.string("nobody"))))
        #expect(none.ids.isEmpty)
        #expect(
            (none.indexEntriesScanned ?? .max) <= 1 && (none.documentsScanned ?? .max) == 0,
            "\(String(describing: none.explain))")
    }

    @Test("a range + limit on one field reads about limit entries; a __name__ lookup reads one document")
    func rangeAndLookup() async throws {
        let range = try await explained(
            Q.query("big", where: Q.field("date", "GREATER_THAN_OR_EQUAL", Q.int(12_345)), limit: 10))
        #expect(range.ids == (12_345..<12_355).map { String(format: "d%05d", $0) })
        #expect(
            (range.indexEntriesScanned ?? .max) <= 15 && (range.documentsScanned ?? .max) <= 15,
            "\(String(describing: range.explain))")
        let lookup = try await explained(Q.query("big", where: Q.field("__name__", "EQUAL", Q.ref("big/d10000"))))
        #expect(lookup.ids == ["d10000"])
        #expect((lookup.documentsScanned ?? .max) <= 2, "\(String(describing: lookup.explain))")
    }

    @Test("a count over an equality answers from the index: documents_scanned is 0")
    func countFromIndex() async throws {
        let element = try await client.aggregate(
            Q.query("big", where: Q.field("owner", "EQUAL", Q.string("u3"))),
            aggregations: #"[{"alias":"n","count":{}}]"#, extra: #""explainOptions":{"analyze":true}"#)
        #expect(
            element["result"]?["aggregateFields"]?["n"] == FS.json(#"{"integerValue":"2000"}"#), "\(element.jsonString)"
        )
        let metrics = element["explainMetrics"]
        #expect(QueryAnswer.stat(metrics, "documents_scanned") == 0, "\(element.jsonString)")
        #expect((QueryAnswer.stat(metrics, "index_entries_scanned") ?? .max) <= 2_001, "\(element.jsonString)")

        let capped = try await client.aggregate(
            Q.query("big", where: Q.field("owner", "EQUAL", Q.string("u3"))),
            aggregations: #"[{"alias":"n","count":{"upTo":"50"}}]"#, extra: #""explainOptions":{"analyze":true}"#)
        #expect(
            capped["result"]?["aggregateFields"]?["n"] == FS.json(#"{"integerValue":"50"}"#), "\(capped.jsonString)")
        #expect(
            (QueryAnswer.stat(capped["explainMetrics"], "index_entries_scanned") ?? .max) <= 51, "\(capped.jsonString)")
        #expect(QueryAnswer.stat(capped["explainMetrics"], "documents_scanned") == 0, "\(capped.jsonString)")

        let all = try await client.aggregate(Q.query("big"), aggregations: #"[{"alias":"n","count":{}}]"#)
        #expect(all["result"]?["aggregateFields"]?["n"] == FS.json(#"{"integerValue":"20000"}"#), "\(all.jsonString)")
    }
}
