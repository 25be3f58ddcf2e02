import Foundation
import HearthCore
import HearthTesting
import Testing

/// Declaring a composite index: the FAILED_PRECONDITION hint, the background build over existing documents, and
/// maintenance on later writes.
@Suite("Query composite indexes", .timeLimit(.minutes(3)))
struct QueryIndexTests {
    private static let query = Q.query(
        "todos", where: Q.field("owner", "EQUAL", Q.string("alice")), orderBy: [Q.order("date", descending: true)])

    private static func todo(_ owner: String, _ date: Int64) -> String {
        #"{"owner":\#(Q.string(owner)),"date":\#(Q.int(date))}"#
    }

    /// Runs the query until it stops answering FAILED_PRECONDITION (the index is building), at most 30 s.
    private static func waitForIndex(_ client: HTTPClient) async throws -> QueryAnswer {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let result = try await client.runQuery(query, extra: #""explainOptions":{"analyze":true}"#)
            if result.status == 200 {
                return try await client.query(query, extra: #""explainOptions":{"analyze":true}"#)
            }
            expectError(result, 400, "FAILED_PRECONDITION")
            if ContinuousClock.now >= deadline { throw HarnessError("the index was not built within 30 s: \(result)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("eq + orderBy another field names the index; declared and restarted, it serves old and new documents")
    func declareBuildAndMaintain() async throws {
        // Production mode: development mode answers without the index (DevIndexTests).
        let server = try await HearthProcess.start(.production)
        let client = server.client
        // 600 todos written before the index exists: alice owns every third, dates collide in pairs.
        try await client.seed(
            "todos", count: 600, id: { String(format: "t%04d", $0) },
            fields: { Self.todo($0 % 3 == 0 ? "alice" : "bob", Int64($0 / 2)) })

        let message = expectError(try await client.runQuery(Self.query), 400, "FAILED_PRECONDITION")
        let expectedIndex = indexJSON("todos", [("owner", "ASCENDING"), ("date", "DESCENDING")])
        #expect(message.contains(expectedIndex), "\(message)")
        // A Firestore user copies the JSON from the message into the index file.
        let start = try #require(message.range(of: #"{"collectionGroup""#), "\(message)")
        let declared = String(message[start.lowerBound...])
        let parsed = try JSONParser.parse(Array(declared.utf8))
        expectJSON(parsed, FS.json(expectedIndex))

        try await server.stop()
        let file = server.dataDirectory.url.appendingPathComponent("hearth.indexes.json")
        try Data(#"{"indexes":[\#(declared)]}"#.utf8).write(to: file)
        let restarted = try await server.restart()
        let client2 = restarted.client

        let answer = try await Self.waitForIndex(client2)
        let alice = (0..<600).filter { $0 % 3 == 0 }
        // date desc, then __name__ desc among equal dates.
        let expected = alice.sorted { ($0 / 2, $0) > ($1 / 2, $1) }.map { String(format: "t%04d", $0) }
        #expect(answer.ids == expected)
        #expect(answer.plans.contains { $0.contains("composite") }, "\(answer.plans)")
        #expect(
            answer.indexEntriesScanned.map { $0 <= expected.count + 2 } == true, "\(String(describing: answer.explain))"
        )

        let limited = try await client2.query(
            Q.query(
                "todos", where: Q.field("owner", "EQUAL", Q.string("alice")),
                orderBy: [Q.order("date", descending: true)],
                limit: 3))
        #expect(limited.ids == Array(expected.prefix(3)))

        // Writes after the declaration keep the index current: a new todo, an owner change in and out, a date
        // change that moves a todo, a delete.
        let newest = try await client2.commit(
            #"""
            [
              {"update": {"name": "\#(FS.name("todos/new"))", "fields": \#(Self.todo("alice", 10_000))}},
              {"update": {"name": "\#(FS.name("todos/t0001"))", "fields": \#(Self.todo("alice", 5_000))}},
              {"update": {"name": "\#(FS.name("todos/\(expected[0])"))", "fields": \#(Self.todo("bob", 299))}},
              {"update": {"name": "\#(FS.name("todos/\(expected[1])"))", "fields": \#(Self.todo("alice", -1))}, "updateMask": {"fieldPaths": ["date"]}},
              {"delete": "\#(FS.name("todos/\(expected[2])"))"}
            ]
            """#)
        try expectOK(newest)
        let after = try await client2.queryIDs(Self.query)
        let kept = expected.dropFirst(3)
        #expect(after == ["new", "t0001"] + kept + [expected[1]], "\(after.prefix(6)) … \(after.suffix(3))")

        // A query the index does not serve still names its own index.
        expectError(
            try await client2.runQuery(
                Q.query("todos", where: Q.field("owner", "EQUAL", Q.string("alice")), orderBy: [Q.order("title")])),
            400, "FAILED_PRECONDITION",
            messageContains: [indexJSON("todos", [("owner", "ASCENDING"), ("title", "ASCENDING")])])
        #expect(try await restarted.stop() == .exit(0))
    }

    @Test("--indexes FILE declares indexes for a fresh server; a malformed index file stops the server with a message")
    func indexesFlag() async throws {
        let directory = try TemporaryDirectory("hearth-e2e-indexfile")
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("firestore.indexes.json")
        try Data(
            #"{"indexes":[\#(indexJSON("items", [("kind", "ASCENDING"), ("size", "ASCENDING")]))],"fieldOverrides":[]}"#
                .utf8
        ).write(to: file)
        var options = HearthProcess.Options.production
        options.extraArguments += ["--indexes", file.path]
        try await withHearth(options) { server in
            let client = server.client
            for (id, kind, size) in [("a", "x", 3), ("b", "y", 1), ("c", "x", 1), ("d", "x", 2)] {
                try await client.create(
                    "items", id: id, fields: #"{"kind":\#(Q.string(kind)),"size":\#(Q.int(Int64(size)))}"#)
            }
            let query = Q.query("items", where: Q.field("kind", "EQUAL", Q.string("x")), orderBy: [Q.order("size")])
            let deadline = ContinuousClock.now + .seconds(30)
            while try await client.runQuery(query).status != 200 {
                if ContinuousClock.now >= deadline { throw HarnessError("index not ready") }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await client.queryIDs(query) == ["c", "d", "a"])
            #expect(
                try await client.queryIDs(
                    Q.query(
                        "items", where: Q.field("kind", "EQUAL", Q.string("x")),
                        orderBy: [Q.order("size"), Q.order("__name__")],
                        startAt: Q.cursor([Q.int(1), Q.ref("items/c")], before: false))) == ["d", "a"])
        }

        try Data(#"{"indexes":[{"collectionGroup":"items","fields":[{"fieldPath":"a"}]}]}"#.utf8).write(to: file)
        do {
            let server = try await HearthProcess.start(options)
            _ = try? await server.kill9()
            Issue.record("a server with a malformed index file started")
        } catch let error as HarnessError {
            #expect(error.description.contains("fields[0]") || error.description.contains("order"), "\(error)")
        }
    }
}
