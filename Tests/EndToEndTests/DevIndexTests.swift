import Foundation
import HearthCore
import HearthTesting
import Testing

/// Issue #20: development mode answers a query whose composite index is missing, as the emulator does, learns the
/// index and builds it; `hearth indexes` prints it; outside development mode the same query is still refused until
/// the index is declared.
@Suite("Development mode: queries without declared indexes", .timeLimit(.minutes(4)))
struct DevIndexTests {
    /// The todo tutorial's query: one user's todos, newest first.
    static let todosOfAnn = Q.query(
        "todos", where: Q.field("owner", "EQUAL", Q.string("ann")), orderBy: [Q.order("date", descending: true)])

    static func seed(_ client: HTTPClient) async throws {
        let writes = [("t1", "ann", 1), ("t2", "bob", 2), ("t3", "ann", 3), ("t4", "ann", 2), ("t5", "bob", 9)].map {
            id, owner, date in
            #"{"update":{"name":"\#(FS.name("todos/" + id))","fields":{"owner":\#(Q.string(owner)),"date":\#(Q.int(Int64(date)))}}}"#
        }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
    }

    @Test(
        "dev mode answers, listens and counts without the index, learns it, and production asks for it")
    func learnedThenRequired() async throws {
        let first = try await HearthProcess.start()
        try await Self.seed(first.client)
        // Answered at once, with the order and limit the index would give.
        #expect(try await first.client.queryIDs(Self.todosOfAnn) == ["t3", "t4", "t1"])
        let limited = Q.query(
            "todos", where: Q.field("owner", "EQUAL", Q.string("ann")), orderBy: [Q.order("date", descending: true)],
            startAt: Q.cursor([Q.int(2)], before: true), limit: 1)
        #expect(try await first.client.queryIDs(limited) == ["t4"])
        let count = try await first.client.aggregate(Self.todosOfAnn, aggregations: #"[{"alias":"n","count":{}}]"#)
        #expect(count["result"]?["aggregateFields"]?["n"] == FS.json(#"{"integerValue":"3"}"#))
        // A live list with the filter and the order gets its results and then the changes.
        let listen = try ListenStream.open(first)
        try await listen.add(1, query: Self.todosOfAnn)
        let initial = try await listen.nextBatch()
        #expect(initial.filter { $0.hasPrefix("change") }.count == 3, "\(initial)")
        try expectOK(
            try await first.client.commit(
                #"[{"update":{"name":"\#(FS.name("todos/t6"))","fields":{"owner":\#(Q.string("ann")),"date":\#(Q.int(7))}}}]"#
            ))
        #expect(try await listen.nextBatch().contains { $0.hasPrefix("change todos/t6") })
        // The log names the index once, and the index is built: the plan then uses it.
        var plans: [String] = []
        for _ in 0..<200 {
            plans = try await first.client.query(Self.todosOfAnn, extra: #""explainOptions":{"analyze":true}"#).plans
            if plans.contains(where: { $0.hasPrefix("composite index") }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(plans.contains { $0.hasPrefix("composite index") }, "\(plans)")
        #expect(try await first.client.queryIDs(Self.todosOfAnn) == ["t6", "t3", "t4", "t1"])
        #expect(first.stderr.components(separatedBy: "a query needed a composite index").count == 2)
        try await first.stop()

        // `hearth indexes` prints what production needs.
        let printed = try await runHearth(["indexes", "--data", first.dataDirectory.path] + first.storeArguments)
        #expect(printed.termination == .exit(0), "\(printed.stderr)")
        let indexes = FS.json(printed.stdout)["indexes"]?.arrayValue ?? []
        #expect(indexes == [FS.json(indexJSON("todos", [("owner", "ASCENDING"), ("date", "DESCENDING")]))])

        // Outside development mode the query is refused until the index is declared ...
        var production = HearthProcess.Options.production
        let second = try await first.restart(production)
        expectError(
            try await second.client.runQuery(Self.todosOfAnn), 400, "FAILED_PRECONDITION",
            messageContains: ["requires an index"])
        try await second.stop()
        // ... with the printed file.
        let file = first.dataDirectory.url.appendingPathComponent("printed.indexes.json")
        try Data(printed.stdout.utf8).write(to: file)
        production.extraArguments += ["--indexes", file.path]
        let third = try await second.restart(production)
        var answer = try await third.client.runQuery(Self.todosOfAnn)
        for _ in 0..<200 where answer.status != 200 {
            try await Task.sleep(for: .milliseconds(50))
            answer = try await third.client.runQuery(Self.todosOfAnn)
        }
        try expectOK(answer)
        #expect(try await third.client.queryIDs(Self.todosOfAnn) == ["t6", "t3", "t4", "t1"])
        try await third.stop()
    }
}
