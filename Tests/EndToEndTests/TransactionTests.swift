import Foundation
import HearthCore
import HearthTesting
import Testing

/// `:beginTransaction`, reads in transactions, `:commit` with a transaction, `:rollback`.
@Suite("Transactions", .sharedHearth, .timeLimit(.minutes(2)))
struct TransactionTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    private func update(_ relative: String, _ fields: String) -> String {
        #"{"update":{"name":"\#(FS.name(relative))","fields":\#(fields)}}"#
    }

    private func getIn(_ transaction: String, _ relative: String) async throws -> HTTPResult {
        try await client.document(relative, query: [("transaction", transaction)])
    }

    private func batchGet(_ names: [String], _ member: String) async throws -> HTTPResult {
        let list = names.map { "\"\(FS.name($0))\"" }.joined(separator: ",")
        return try await client.request("POST", "\(FS.root()):batchGet", json: #"{"documents":[\#(list)],\#(member)}"#)
    }

    @Test("read-write: read, concurrent write, commit → ABORTED and none of the transaction's writes applied")
    func concurrentWriteAborts() async throws {
        let c = FS.unique("tx")
        try await client.create(c, id: "doc", fields: #"{"v":\#(Q.int(1))}"#)
        let tx = try await client.beginTransaction()
        expectJSON(try expectOK(try await getIn(tx, "\(c)/doc"))["fields"], FS.json(#"{"v":{"integerValue":"1"}}"#))
        try expectOK(try await client.commit("[\(update("\(c)/doc", #"{"v":\#(Q.int(2))}"#))]"))
        let result = try await client.commit(
            "[\(update("\(c)/doc", #"{"v":\#(Q.int(10))}"#)),\(update("\(c)/other", "{}"))]", transaction: tx)
        expectError(result, 409, "ABORTED")
        expectJSON(try await client.fields("\(c)/doc"), FS.json(#"{"v":{"integerValue":"2"}}"#))
        expectError(try await client.document("\(c)/other"), 404, "NOT_FOUND")
        expectError(try await client.commit("[]", transaction: tx), 400, "INVALID_ARGUMENT")
    }

    @Test(
        "read-write: a concurrent delete of a read document, or a concurrent create of a document read as missing, aborts"
    )
    func deleteAndCreateAbort() async throws {
        let c = FS.unique("tx")
        try await client.create(c, id: "doc", fields: #"{"v":\#(Q.int(1))}"#)
        let first = try await client.beginTransaction()
        try expectOK(try await batchGet(["\(c)/doc"], #""transaction":"\#(first)""#))
        try expectOK(try await client.request("DELETE", FS.path("\(c)/doc")))
        expectError(try await client.commit("[\(update("\(c)/log", "{}"))]", transaction: first), 409, "ABORTED")
        expectError(try await client.document("\(c)/log"), 404, "NOT_FOUND")

        let second = try await client.beginTransaction()
        let read = try expectOK(try await batchGet(["\(c)/fresh"], #""transaction":"\#(second)""#))
        #expect(read[0]?["missing"] == .string(FS.name("\(c)/fresh")), "\(read.jsonString)")
        try await client.create(c, id: "fresh", fields: #"{"by":\#(Q.string("other"))}"#)
        expectError(
            try await client.commit("[\(update("\(c)/fresh", #"{"by":\#(Q.string("tx"))}"#))]", transaction: second),
            409,
            "ABORTED")
        expectJSON(try await client.fields("\(c)/fresh"), FS.json(#"{"by":{"stringValue":"other"}}"#))
    }

    @Test("read-write: read then commit succeeds; writes to other documents meanwhile do not conflict; the ID is spent")
    func commitSucceeds() async throws {
        let c = FS.unique("tx")
        try await client.create(c, id: "doc", fields: #"{"v":\#(Q.int(1))}"#)
        let tx = try await client.beginTransaction()
        try expectOK(try await getIn(tx, "\(c)/doc"))
        expectError(try await getIn(tx, "\(c)/missing"), 404, "NOT_FOUND")
        try expectOK(try await client.commit("[\(update("\(c)/unrelated", "{}"))]"))
        let body = try expectOK(
            try await client.commit(
                "[\(update("\(c)/doc", #"{"v":\#(Q.int(2))}"#)),\(update("\(c)/new", "{}"))]", transaction: tx))
        let commitTime = try FS.time(body["commitTime"])
        #expect(body["writeResults"]?.arrayValue?.count == 2)
        expectJSON(try await client.fields("\(c)/doc"), FS.json(#"{"v":{"integerValue":"2"}}"#))
        #expect(try FS.time(try expectOK(try await client.document("\(c)/new"))["updateTime"]) == commitTime)
        expectError(try await client.commit("[]", transaction: tx), 400, "INVALID_ARGUMENT")
        expectError(try await getIn(tx, "\(c)/doc"), 400, "INVALID_ARGUMENT")

        let blind = try await client.beginTransaction()
        try expectOK(try await client.commit("[\(update("\(c)/blind", "{}"))]", transaction: blind))
        try expectOK(try await client.document("\(c)/blind"))
    }

    @Test(
        "read-write: a query read, then a concurrent insert or change of a match, aborts; a non-matching insert does not"
    )
    func phantoms() async throws {
        let c = FS.unique("phantom")
        try await client.create(c, id: "a", fields: #"{"g":\#(Q.string("x")),"n":\#(Q.int(1))}"#)
        try await client.create(c, id: "b", fields: #"{"g":\#(Q.string("x")),"n":\#(Q.int(2))}"#)
        let query = Q.query(c, where: Q.field("g", "EQUAL", Q.string("x")))

        let insert = try await client.beginTransaction()
        #expect(try await client.query(query, extra: #""transaction":"\#(insert)""#).ids == ["a", "b"])
        try await client.create(c, id: "c", fields: #"{"g":\#(Q.string("x"))}"#)
        expectError(try await client.commit("[\(update("\(c)/summary", "{}"))]", transaction: insert), 409, "ABORTED")
        expectError(try await client.document("\(c)/summary"), 404, "NOT_FOUND")

        let change = try await client.beginTransaction()
        #expect(try await client.query(query, extra: #""transaction":"\#(change)""#).ids == ["a", "b", "c"])
        try expectOK(try await client.commit("[\(update("\(c)/b", #"{"g":\#(Q.string("x")),"n":\#(Q.int(3))}"#))]"))
        expectError(try await client.commit("[\(update("\(c)/summary", "{}"))]", transaction: change), 409, "ABORTED")

        let unrelated = try await client.beginTransaction()
        #expect(try await client.query(query, extra: #""transaction":"\#(unrelated)""#).ids == ["a", "b", "c"])
        try await client.create(c, id: "d", fields: #"{"g":\#(Q.string("y"))}"#)
        try expectOK(try await client.commit("[\(update("\(c)/summary", "{}"))]", transaction: unrelated))

        let counted = try await client.beginTransaction()
        let count = try await client.aggregate(
            query, aggregations: #"[{"alias":"n","count":{}}]"#, extra: #""transaction":"\#(counted)""#)
        #expect(count["result"]?["aggregateFields"]?["n"] == FS.json(#"{"integerValue":"3"}"#))
        try await client.create(c, id: "e", fields: #"{"g":\#(Q.string("x"))}"#)
        expectError(
            try await client.commit("[\(update("\(c)/summary", "{}"))]", transaction: counted), 409, "ABORTED",
            messageContains: [])
    }

    @Test(
        "read-only: queries and aggregations see the snapshot of its beginning; writing in it is INVALID_ARGUMENT")
    func readOnlySnapshot() async throws {
        let c = FS.unique("ro")
        try await client.create(c, id: "doc", fields: #"{"v":\#(Q.int(1)),"g":\#(Q.string("x"))}"#)
        let tx = try await client.beginTransaction(readOnly: true)
        try expectOK(try await client.commit("[\(update("\(c)/doc", #"{"v":\#(Q.int(2)),"g":\#(Q.string("x"))}"#))]"))
        try await client.create(c, id: "later", fields: #"{"v":\#(Q.int(3)),"g":\#(Q.string("x"))}"#)

        let query = Q.query(c, where: Q.field("g", "EQUAL", Q.string("x")))
        let answer = try await client.query(query, extra: #""transaction":"\#(tx)""#)
        #expect(answer.ids == ["doc"])
        expectJSON(answer.documents.first?["fields"]?["v"], FS.json(#"{"integerValue":"1"}"#))
        let count = try await client.aggregate(
            query, aggregations: #"[{"alias":"n","count":{}},{"alias":"s","sum":{"field":{"fieldPath":"v"}}}]"#,
            extra: #""transaction":"\#(tx)""#)
        expectJSON(
            count["result"]?["aggregateFields"], FS.json(#"{"n":{"integerValue":"1"},"s":{"integerValue":"1"}}"#))
        // Outside the transaction the latest state is visible.
        expectJSON(try await client.fields("\(c)/doc"), FS.json(#"{"v":{"integerValue":"2"},"g":{"stringValue":"x"}}"#))
        #expect(try await client.queryIDs(query) == ["doc", "later"])
        #expect(try await client.query(query, extra: #""transaction":"\#(tx)""#).ids == ["doc"], "still the snapshot")

        expectError(
            try await client.commit("[\(update("\(c)/doc", #"{"v":\#(Q.int(9))}"#))]", transaction: tx), 400,
            "INVALID_ARGUMENT")
        expectJSON(try await client.fields("\(c)/doc")["v"], FS.json(#"{"integerValue":"2"}"#))

        let empty = try await client.beginTransaction(readOnly: true)
        try expectOK(try await client.runQuery(query, extra: #""transaction":"\#(empty)""#))
        try expectOK(try await client.commit("[]", transaction: empty))
    }

    @Test("read-only: GET and batchGet in a read-only transaction read its snapshot")
    func readOnlyDocumentReads() async throws {
        let c = FS.unique("ro")
        try await client.create(c, id: "doc", fields: #"{"v":\#(Q.int(1))}"#)
        let tx = try await client.beginTransaction(readOnly: true)
        try expectOK(try await client.commit("[\(update("\(c)/doc", #"{"v":\#(Q.int(2))}"#))]"))
        try await client.create(c, id: "later", fields: "{}")
        expectJSON(try expectOK(try await getIn(tx, "\(c)/doc"))["fields"]?["v"], FS.json(#"{"integerValue":"1"}"#))
        expectError(try await getIn(tx, "\(c)/later"), 404, "NOT_FOUND")
        let batch = try expectOK(try await batchGet(["\(c)/doc", "\(c)/later"], #""transaction":"\#(tx)""#))
        expectJSON(batch[0]?["found"]?["fields"]?["v"], FS.json(#"{"integerValue":"1"}"#))
        #expect(batch[1]?["missing"] == .string(FS.name("\(c)/later")), "\(batch.jsonString)")
        let started = try expectOK(try await batchGet(["\(c)/doc"], #""newTransaction":{"readOnly":{}}"#))
        #expect(started[0]?["transaction"]?.stringValue != nil, "\(started.jsonString)")
        expectJSON(started[0]?["found"]?["fields"]?["v"], FS.json(#"{"integerValue":"2"}"#))
    }

    @Test("rollback ends a transaction: reusing it is INVALID_ARGUMENT")
    func rollback() async throws {
        let c = FS.unique("rb")
        try await client.create(c, id: "doc", fields: "{}")
        for readOnly in [false, true] {
            let tx = try await client.beginTransaction(readOnly: readOnly)
            #expect(try await client.query(Q.query(c), extra: #""transaction":"\#(tx)""#).ids == ["doc"])
            let body = try expectOK(try await client.rollback(tx))
            #expect(body == .object([:]), "\(body.jsonString)")
            expectError(
                try await client.commit("[\(update("\(c)/doc", "{}"))]", transaction: tx), 400, "INVALID_ARGUMENT")
            expectError(try await client.rollback(tx), 400, "INVALID_ARGUMENT")
            expectError(try await getIn(tx, "\(c)/doc"), 400, "INVALID_ARGUMENT")
            expectError(
                try await client.runQuery(Q.query(c), extra: #""transaction":"\#(tx)""#), 400, "INVALID_ARGUMENT")
        }
        expectError(try await client.request("POST", "\(FS.root()):rollback", json: "{}"), 400, "INVALID_ARGUMENT")
    }

    @Test(
        "an unknown or malformed transaction ID is INVALID_ARGUMENT everywhere")
    func unknownTransaction() async throws {
        let c = FS.unique("unknown")
        try await client.create(c, id: "doc", fields: "{}")
        let unknown = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        for id in [unknown, "not base64 at all!"] {
            let member = JSONValue.string(id).jsonString
            expectError(try await getIn(id, "\(c)/doc"), 400, "INVALID_ARGUMENT")
            expectError(try await batchGet(["\(c)/doc"], #""transaction":\#(member)"#), 400, "INVALID_ARGUMENT")
            expectError(
                try await client.runQuery(Q.query(c), extra: #""transaction":\#(member)"#), 400, "INVALID_ARGUMENT")
            expectError(
                try await client.runAggregation(
                    Q.query(c), aggregations: #"[{"count":{}}]"#, extra: #""transaction":\#(member)"#),
                400, "INVALID_ARGUMENT")
            expectError(
                try await client.request(
                    "POST", "\(FS.root()):commit",
                    json: #"{"writes":[\#(update("\(c)/doc", "{}"))],"transaction":\#(member)}"#),
                400, "INVALID_ARGUMENT")
            expectError(
                try await client.request("POST", "\(FS.root()):rollback", json: #"{"transaction":\#(member)}"#), 400,
                "INVALID_ARGUMENT")
        }
        let tx = try await client.beginTransaction()
        expectError(
            try await client.runQuery(Q.query(c), extra: #""transaction":"\#(tx)","newTransaction":{}"#), 400,
            "INVALID_ARGUMENT")
        expectError(
            try await client.request(
                "POST", "\(FS.root()):beginTransaction", json: #"{"options":{"readOnly":{},"readWrite":{}}}"#), 400,
            "INVALID_ARGUMENT")
    }

    @Test(
        "newTransaction on runQuery and batchGet returns a transaction that records the reads and can commit")
    func newTransaction() async throws {
        let c = FS.unique("newtx")
        try await client.create(c, id: "a", fields: #"{"v":\#(Q.int(1))}"#)

        let started = try await client.query(Q.query(c), extra: #""newTransaction":{"readWrite":{}}"#)
        #expect(started.ids == ["a"])
        let fromQuery = try #require(started.transaction, "the first element names the new transaction")
        try expectOK(
            try await client.commit("[\(update("\(c)/a", #"{"v":\#(Q.int(2))}"#))]", transaction: fromQuery))
        expectJSON(try await client.fields("\(c)/a"), FS.json(#"{"v":{"integerValue":"2"}}"#))

        let watched = try await client.query(Q.query(c), extra: #""newTransaction":{}"#)
        let conflicted = try #require(watched.transaction)
        try expectOK(try await client.commit("[\(update("\(c)/a", #"{"v":\#(Q.int(3))}"#))]"))
        expectError(try await client.commit("[\(update("\(c)/a", "{}"))]", transaction: conflicted), 409, "ABORTED")

        let empty = try await client.query(Q.query(FS.unique("nothing")), extra: #""newTransaction":{}"#)
        #expect(empty.ids.isEmpty)
        try expectOK(try await client.commit("[]", transaction: try #require(empty.transaction)))

        let batch = try expectOK(try await batchGet(["\(c)/a", "\(c)/b"], #""newTransaction":{}"#))
        let elements = try #require(batch.arrayValue)
        #expect(elements.count == 2)
        let fromBatch = try #require(elements.first?["transaction"]?.stringValue, "\(batch.jsonString)")
        #expect(elements.first?["found"]?["name"] == .string(FS.name("\(c)/a")))
        #expect(elements.dropFirst().allSatisfy { $0["transaction"] == nil })
        try expectOK(try await client.commit("[\(update("\(c)/b", #"{"v":\#(Q.int(1))}"#))]", transaction: fromBatch))
        try expectOK(try await client.document("\(c)/b"))

        let readOnly = try await client.query(Q.query(c), extra: #""newTransaction":{"readOnly":{}}"#)
        let readOnlyID = try #require(readOnly.transaction)
        expectError(
            try await client.commit("[\(update("\(c)/a", "{}"))]", transaction: readOnlyID), 400, "INVALID_ARGUMENT")
    }

    @Test("16 concurrent increment transactions, retried on ABORTED, lose no update")
    func concurrentIncrements() async throws {
        let c = FS.unique("counter")
        try await client.create(c, id: "n", fields: #"{"count":\#(Q.int(0))}"#)
        let aborted = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    for _ in 0..<200 {
                        let tx = try await client.beginTransaction()
                        let read = try await client.document("\(c)/n", query: [("transaction", tx)])
                        guard read.status == 200,
                            let text = try read.json()["fields"]?["count"]?["integerValue"]?.stringValue,
                            let count = Int(text)
                        else { throw HarnessError("read failed: \(read)") }
                        let result = try await client.commit(
                            #"[{"update":{"name":"\#(FS.name("\(c)/n"))","fields":{"count":\#(Q.int(Int64(count + 1)))}}}]"#,
                            transaction: tx)
                        if result.status == 200 { return }
                        guard result.status == 409 else { throw HarnessError("commit failed: \(result)") }
                        aborted.withLock { $0 += 1 }
                    }
                    throw HarnessError("no commit after 200 attempts")
                }
            }
            try await group.waitForAll()
        }
        expectJSON(
            try await client.fields("\(c)/n"), FS.json(#"{"count":{"integerValue":"16"}}"#), "\(aborted.value) aborts")
    }

    @Test("one caller holds at most 8 read-only transactions; the administrator and others still get theirs")
    func perCallerReadOnlyLimit() async throws {
        // A server of its own: the suite's other tests begin transactions from this same address.
        try await withHearth { server in
            let client = server.client
            let options = #"{"options":{"readOnly":{}}}"#
            var held: [String] = []
            for _ in 0..<8 { held.append(try await client.beginTransaction(readOnly: true)) }
            let refused = try await client.request("POST", "\(FS.root()):beginTransaction", json: options)
            expectError(refused, 429, "RESOURCE_EXHAUSTED", messageContains: ["8 open read-only transactions"])
            // A read with newTransaction counts against the same limit.
            let viaRead = try await client.request(
                "POST", "\(FS.root()):batchGet",
                json: #"{"documents":["\#(FS.name("c/d"))"],"newTransaction":{"readOnly":{}}}"#)
            expectError(viaRead, 429, "RESOURCE_EXHAUSTED")
            let admin = try await client.request(
                "POST", "\(FS.root()):beginTransaction", json: options, headers: ["Authorization": "Bearer owner"])
            try expectOK(admin)
            let rollback = #"{"transaction":"\#(held[0])"}"#
            try expectOK(try await client.request("POST", "\(FS.root()):rollback", json: rollback))
            _ = try await client.beginTransaction(readOnly: true)
        }
    }
}
