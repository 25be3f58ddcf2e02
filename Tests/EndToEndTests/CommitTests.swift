import Foundation
import HearthCore
import HearthTesting
import Testing

/// `:commit` and `:batchGet`.
@Suite("Commit and batchGet", .sharedHearth, .timeLimit(.minutes(2)))
struct CommitTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    @Test("several writes land together with one commitTime; a delete's result is {}")
    func atomicCommit() async throws {
        let c = FS.unique("atomic")
        try await client.create(c, id: "old", fields: #"{"v":{"integerValue":"1"}}"#)
        let result = try await client.commit(
            #"""
            [
              {"update": {"name": "\#(FS.name("\(c)/a"))", "fields": {"v": {"integerValue": "1"}}}},
              {"update": {"name": "\#(FS.name("\(c)/b"))", "fields": {"v": {"integerValue": "2"}}}, "currentDocument": {"exists": false}},
              {"update": {"name": "\#(FS.name("\(c)/a/sub/c"))", "fields": {}}},
              {"delete": "\#(FS.name("\(c)/old"))"}
            ]
            """#)
        let body = try expectOK(result)
        let commitTime = try FS.time(body["commitTime"])
        let writeResults = try #require(body["writeResults"]?.arrayValue)
        #expect(writeResults.count == 4)
        for index in 0..<3 {
            #expect(try FS.time(writeResults[index]["updateTime"]) == commitTime)
            #expect(writeResults[index]["transformResults"] == nil)
        }
        #expect(writeResults[3] == .object([:]), "a delete's WriteResult is empty: \(writeResults[3])")

        for path in ["\(c)/a", "\(c)/b", "\(c)/a/sub/c"] {
            let document = try expectOK(try await client.document(path))
            #expect(try FS.time(document["updateTime"]) == commitTime)
            #expect(try FS.time(document["createTime"]) == commitTime)
        }
        expectError(try await client.document("\(c)/old"), 404, "NOT_FOUND")
        expectJSON(try await client.fields("\(c)/b"), FS.json(#"{"v":{"integerValue":"2"}}"#))
    }

    @Test("an empty commit succeeds with a commitTime")
    func emptyCommit() async throws {
        let body = try expectOK(try await client.commit("[]"))
        _ = try FS.time(body["commitTime"])
        #expect(body["writeResults"] == nil || body["writeResults"] == .array([]))
    }

    @Test("a failing precondition in write #2 fails the whole commit: write #1 is not applied")
    func failedCommitIsAtomic() async throws {
        let c = FS.unique("rollback")
        let before = try await client.create(c, id: "a", fields: #"{"v":{"integerValue":"1"}}"#)
        let writes = { (second: String) in
            #"""
            [
              {"update": {"name": "\#(FS.name("\(c)/a"))", "fields": {"v": {"integerValue": "2"}}}},
              {"update": {"name": "\#(FS.name("\(c)/fresh"))", "fields": {}}},
              \#(second)
            ]
            """#
        }
        let missing = try await client.commit(
            writes(
                #"{"update": {"name": "\#(FS.name("\(c)/ghost"))", "fields": {}}, "currentDocument": {"exists": true}}"#
            ))
        expectError(missing, 404, "NOT_FOUND")
        let exists = try await client.commit(
            writes(
                #"{"update": {"name": "\#(FS.name("\(c)/a"))", "fields": {}}, "currentDocument": {"exists": false}}"#))
        expectError(exists, 409, "ALREADY_EXISTS")
        let stale = try await client.commit(
            writes(#"{"delete": "\#(FS.name("\(c)/a"))", "currentDocument": {"updateTime": "2001-01-01T00:00:00Z"}}"#))
        expectError(stale, 400, "FAILED_PRECONDITION")
        let invalid = try await client.commit(
            writes(
                #"{"transform": {"document": "\#(FS.name("\(c)/a"))", "fieldTransforms": [{"fieldPath": "v", "increment": {"stringValue": "x"}}]}}"#
            ))
        expectError(invalid, 400, "INVALID_ARGUMENT")

        let after = try expectOK(try await client.document("\(c)/a"))
        expectJSON(after["fields"], FS.json(#"{"v":{"integerValue":"1"}}"#))
        #expect(after["updateTime"] == before["updateTime"])
        expectError(try await client.document("\(c)/fresh"), 404, "NOT_FOUND")
        expectError(try await client.document("\(c)/ghost"), 404, "NOT_FOUND")
    }

    @Test("two writes to one document in one commit apply in order")
    func writesApplyInOrder() async throws {
        let c = FS.unique("order")
        let d = FS.name("\(c)/d")
        let body = try expectOK(
            try await client.commit(
                #"""
                [
                  {"update": {"name": "\#(d)", "fields": {"a": {"integerValue": "1"}, "z": {"integerValue": "9"}}}},
                  {"update": {"name": "\#(d)", "fields": {"b": {"integerValue": "2"}}}, "updateMask": {"fieldPaths": ["b", "z"]}},
                  {"transform": {"document": "\#(d)", "fieldTransforms": [{"fieldPath": "a", "increment": {"integerValue": "10"}}]}},
                  {"update": {"name": "\#(d)", "fields": {"c": {"integerValue": "3"}}}, "updateMask": {"fieldPaths": ["c"]}, "currentDocument": {"exists": true}}
                ]
                """#))
        #expect(body["writeResults"]?.arrayValue?.count == 4)
        expectJSON(body["writeResults"]?[2]?["transformResults"], FS.json(#"[{"integerValue":"11"}]"#))
        expectJSON(
            try await client.fields("\(c)/d"),
            FS.json(#"{"a":{"integerValue":"11"},"b":{"integerValue":"2"},"c":{"integerValue":"3"}}"#))

        let recreate = try expectOK(
            try await client.commit(
                #"[{"delete": "\#(d)"}, {"update": {"name": "\#(d)", "fields": {"fresh": {"booleanValue": true}}}, "currentDocument": {"exists": false}}]"#
            ))
        #expect(recreate["writeResults"]?.arrayValue?.count == 2)
        expectJSON(try await client.fields("\(c)/d"), FS.json(#"{"fresh":{"booleanValue":true}}"#))
    }

    @Test("serverTimestamp (setToServerValue REQUEST_TIME) equals the commitTime")
    func serverTimestamp() async throws {
        let c = FS.unique("stamp")
        let body = try expectOK(
            try await client.commit(
                #"""
                [{"update": {"name": "\#(FS.name("\(c)/d"))", "fields": {"v": {"integerValue": "1"}}},
                  "updateTransforms": [{"fieldPath": "created", "setToServerValue": "REQUEST_TIME"},
                                       {"fieldPath": "meta.`edited.at`", "setToServerValue": "REQUEST_TIME"}]}]
                """#))
        // REQUEST_TIME is the commit time at millisecond precision, as Firestore documents it.
        let commitTime = try FS.time(body["commitTime"]).truncatedToMilliseconds
        let results = try #require(body["writeResults"]?[0]?["transformResults"]?.arrayValue)
        #expect(results.count == 2)
        for result in results { #expect(try FS.time(result["timestampValue"]) == commitTime) }
        let fields = try await client.fields("\(c)/d")
        #expect(try FS.time(fields["created"]?["timestampValue"]) == commitTime)
        #expect(try FS.time(fields["meta"]?["mapValue"]?["fields"]?["edited.at"]?["timestampValue"]) == commitTime)
        expectJSON(fields["v"], FS.json(#"{"integerValue":"1"}"#))
    }

    @Test("increment, maximum and minimum: types, saturation, transformResults")
    func numericTransforms() async throws {
        let c = FS.unique("numeric")
        let d = FS.name("\(c)/d")
        try await client.create(
            c, id: "d",
            fields:
                #"{"i":{"integerValue":"5"},"f":{"doubleValue":1.5},"big":{"integerValue":"9223372036854775800"},"small":{"integerValue":"-9223372036854775800"},"s":{"stringValue":"x"},"mx":{"integerValue":"3"},"mx2":{"integerValue":"3"},"mn":{"doubleValue":2.5},"mn2":{"integerValue":"7"}}"#
        )
        let body = try expectOK(
            try await client.commit(
                #"""
                [{"transform": {"document": "\#(d)", "fieldTransforms": [
                  {"fieldPath": "i", "increment": {"integerValue": "10"}},
                  {"fieldPath": "f", "increment": {"integerValue": "1"}},
                  {"fieldPath": "big", "increment": {"integerValue": "100"}},
                  {"fieldPath": "small", "increment": {"integerValue": "-100"}},
                  {"fieldPath": "s", "increment": {"integerValue": "3"}},
                  {"fieldPath": "absent", "increment": {"doubleValue": 0.5}},
                  {"fieldPath": "mx", "maximum": {"doubleValue": 4.5}},
                  {"fieldPath": "mx2", "maximum": {"doubleValue": 3.0}},
                  {"fieldPath": "mn", "minimum": {"integerValue": "1"}},
                  {"fieldPath": "mn2", "minimum": {"integerValue": "9"}},
                  {"fieldPath": "newmax", "maximum": {"integerValue": "-1"}}
                ]}}]
                """#))
        let expected = FS.json(
            #"""
            [{"integerValue":"15"},{"doubleValue":2.5},{"integerValue":"9223372036854775807"},{"integerValue":"-9223372036854775808"},
             {"integerValue":"3"},{"doubleValue":0.5},{"doubleValue":4.5},{"integerValue":"3"},{"integerValue":"1"},{"integerValue":"7"},{"integerValue":"-1"}]
            """#)
        #expect(body["writeResults"]?[0]?["transformResults"] == expected)
        #expect(
            try await client.fields("\(c)/d")
                == FS.json(
                    #"{"i":{"integerValue":"15"},"f":{"doubleValue":2.5},"big":{"integerValue":"9223372036854775807"},"small":{"integerValue":"-9223372036854775808"},"s":{"integerValue":"3"},"absent":{"doubleValue":0.5},"mx":{"doubleValue":4.5},"mx2":{"integerValue":"3"},"mn":{"integerValue":"1"},"mn2":{"integerValue":"7"},"newmax":{"integerValue":"-1"}}"#
                ))

        // Saturated counters stay saturated; an integer plus a double is a double.
        let again = try expectOK(
            try await client.commit(
                #"""
                [{"update": {"name": "\#(d)", "fields": {}}, "updateMask": {"fieldPaths": []},
                  "updateTransforms": [{"fieldPath": "big", "increment": {"integerValue": "1"}},
                                       {"fieldPath": "i", "increment": {"doubleValue": 0.25}}]}]
                """#))
        expectJSON(
            again["writeResults"]?[0]?["transformResults"],
            FS.json(#"[{"integerValue":"9223372036854775807"},{"doubleValue":15.25}]"#))
    }

    @Test("appendMissingElements and removeAllFromArray: Firestore's equality, null transformResults")
    func arrayTransforms() async throws {
        let c = FS.unique("arrays")
        let d = FS.name("\(c)/d")
        try await client.create(
            c, id: "d",
            fields:
                #"{"tags":{"arrayValue":{"values":[{"integerValue":"1"},{"stringValue":"a"},{"integerValue":"1"}]}},"rm":{"arrayValue":{"values":[{"integerValue":"1"},{"integerValue":"2"},{"doubleValue":1.0},{"nullValue":null},{"integerValue":"3"},{"integerValue":"1"}]}},"notArray":{"stringValue":"x"}}"#
        )
        let body = try expectOK(
            try await client.commit(
                #"""
                [{"transform": {"document": "\#(d)", "fieldTransforms": [
                  {"fieldPath": "tags", "appendMissingElements": {"values": [{"stringValue": "b"}, {"doubleValue": 1.0}, {"stringValue": "b"}, {"mapValue": {"fields": {"k": {"integerValue": "1"}}}}]}},
                  {"fieldPath": "rm", "removeAllFromArray": {"values": [{"doubleValue": 1.0}, {"nullValue": null}, {"integerValue": "99"}]}},
                  {"fieldPath": "notArray", "appendMissingElements": {"values": [{"integerValue": "5"}]}},
                  {"fieldPath": "fresh", "removeAllFromArray": {"values": [{"integerValue": "5"}]}},
                  {"fieldPath": "fresh2", "appendMissingElements": {"values": [{"integerValue": "5"}, {"integerValue": "5"}]}}
                ]}}]
                """#))
        expectJSON(
            body["writeResults"]?[0]?["transformResults"],
            FS.json(
                #"[{"nullValue":null},{"nullValue":null},{"nullValue":null},{"nullValue":null},{"nullValue":null}]"#))
        let fields = try await client.fields("\(c)/d")
        expectJSON(
            fields["tags"],
            FS.json(
                #"{"arrayValue":{"values":[{"integerValue":"1"},{"stringValue":"a"},{"integerValue":"1"},{"stringValue":"b"},{"mapValue":{"fields":{"k":{"integerValue":"1"}}}}]}}"#
            ))
        expectJSON(fields["rm"], FS.json(#"{"arrayValue":{"values":[{"integerValue":"2"},{"integerValue":"3"}]}}"#))
        expectJSON(fields["notArray"], FS.json(#"{"arrayValue":{"values":[{"integerValue":"5"}]}}"#))
        expectJSON(fields["fresh"], FS.json(#"{"arrayValue":{}}"#))
        expectJSON(fields["fresh2"], FS.json(#"{"arrayValue":{"values":[{"integerValue":"5"}]}}"#))
    }

    @Test("a transform write on a missing document creates it")
    func transformCreates() async throws {
        let c = FS.unique("tcreate")
        let body = try expectOK(
            try await client.commit(
                #"[{"transform": {"document": "\#(FS.name("\(c)/d"))", "fieldTransforms": [{"fieldPath": "n", "increment": {"integerValue": "1"}}]}}]"#
            ))
        let commitTime = try FS.time(body["commitTime"])
        let document = try expectOK(try await client.document("\(c)/d"))
        expectJSON(document["fields"], FS.json(#"{"n":{"integerValue":"1"}}"#))
        #expect(try FS.time(document["createTime"]) == commitTime)
    }

    @Test(
        "malformed writes are 400 INVALID_ARGUMENT and nothing of the commit is applied",
        arguments: [
            #"{"transform":{"document":"DOC","fieldTransforms":[{"fieldPath":"a..b","increment":{"integerValue":"1"}}]}}"#,
            #"{"transform":{"document":"DOC","fieldTransforms":[{"fieldPath":"a","frobnicate":{"integerValue":"1"}}]}}"#,
            #"{"transform":{"document":"DOC","fieldTransforms":[{"fieldPath":"a","increment":{"integerValue":"1"},"maximum":{"integerValue":"1"}}]}}"#,
            #"{"transform":{"document":"DOC","fieldTransforms":[{"fieldPath":"a"}]}}"#,
            #"{"update":{"name":"DOC","fields":{}},"updateTransforms":[{"fieldPath":"a","setToServerValue":"NOW"}]}"#,
            #"{"update":{"name":"DOC","fields":{}},"updateTransforms":[{"fieldPath":"a","increment":{"integerValue":"1"}},{"fieldPath":"a","increment":{"integerValue":"1"}}]}"#,
            #"{"update":{"name":"DOC","fields":{}},"updateTransforms":[{"fieldPath":"a","appendMissingElements":{"values":[{"arrayValue":{}}]}}]}"#,
            #"{"update":{"name":"DOC","fields":{}},"updateMask":{"fieldPaths":["a..b"]}}"#,
            #"{"update":{"name":"DOC","fields":{}},"delete":"DOC"}"#,
            #"{}"#,
            #"{"delete":"COLLECTION"}"#,
            #"{"update":{"name":"projects/other/databases/(default)/documents/c/d","fields":{}}}"#,
            #"{"update":{"name":"DOC","fields":{"x":{"integerValue":"nope"}}}}"#,
            #"{"update":{"name":"DOC","fields":{}},"currentDocument":{"exists":"yes"}}"#,
        ])
    func malformedWrites(write: String) async throws {
        let c = FS.unique("badwrite")
        let bad = write.replacingOccurrences(of: "DOC", with: FS.name("\(c)/d")).replacingOccurrences(
            of: "COLLECTION", with: FS.name(c))
        let result = try await client.commit(#"[{"update":{"name":"\#(FS.name("\(c)/first"))","fields":{}}},\#(bad)]"#)
        expectError(result, 400, "INVALID_ARGUMENT")
        expectError(try await client.document("\(c)/first"), 404, "NOT_FOUND")
        expectError(try await client.document("\(c)/d"), 404, "NOT_FOUND")
    }

    @Test("concurrent increments on one document lose no update")
    func concurrentIncrements() async throws {
        let c = FS.unique("counter")
        let d = FS.name("\(c)/d")
        let results = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var seen: [Int64] = []
                    for _ in 0..<10 {
                        let body = try expectOK(
                            try await client.commit(
                                #"[{"transform":{"document":"\#(d)","fieldTransforms":[{"fieldPath":"n","increment":{"integerValue":"1"}}]}}]"#
                            ))
                        if let text = body["writeResults"]?[0]?["transformResults"]?[0]?["integerValue"]?.stringValue,
                            let value = Int64(text)
                        {
                            seen.append(value)
                        }
                    }
                    return seen
                }
            }
            var all: [Int64] = []
            for try await seen in group { all += seen }
            return all
        }
        #expect(results.sorted() == Array(1...80), "each increment sees a distinct running total")
        expectJSON(try await client.fields("\(c)/d"), FS.json(#"{"n":{"integerValue":"80"}}"#))
    }

    @Test("concurrent creates of one documentId: exactly one succeeds, the rest are 409")
    func concurrentCreates() async throws {
        let c = FS.unique("race")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<12 {
                group.addTask {
                    let result = try await client.request(
                        "POST", FS.path(c), query: [("documentId", "same")],
                        json: FS.document(#"{"w":{"integerValue":"\#(worker)"}}"#))
                    if result.status != 200 { expectError(result, 409, "ALREADY_EXISTS") }
                    return result.status
                }
            }
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
        #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == 409 }.count == 11, "\(statuses)")
    }

    @Test("batchGet returns found and missing in request order, each with a readTime")
    func batchGet() async throws {
        let c = FS.unique("batch")
        try await client.create(c, id: "a", fields: #"{"v":{"integerValue":"1"},"w":{"integerValue":"2"}}"#)
        try await client.create(c, id: "b", fields: #"{"v":{"integerValue":"3"}}"#)
        try await client.create("\(c)/a/sub", id: "s")
        let names = ["\(c)/zzz", "\(c)/b", "\(c)/nope", "\(c)/a", "\(c)/a/sub/s"].map { FS.name($0) }
        let body = try expectOK(
            try await client.request(
                "POST", "\(FS.root()):batchGet",
                json: #"{"documents":[\#(names.map { "\"\($0)\"" }.joined(separator: ","))]}"#))
        let results = try #require(body.arrayValue)
        #expect(results.count == 5)
        #expect(results[0]["missing"] == .string(names[0]))
        #expect(results[1]["found"]?["name"] == .string(names[1]))
        expectJSON(results[1]["found"]?["fields"], FS.json(#"{"v":{"integerValue":"3"}}"#))
        #expect(results[2]["missing"] == .string(names[2]))
        expectJSON(results[3]["found"]?["fields"], FS.json(#"{"v":{"integerValue":"1"},"w":{"integerValue":"2"}}"#))
        #expect(results[4]["found"]?["name"] == .string(names[4]))
        for result in results {
            _ = try FS.time(result["readTime"])
            #expect((result["found"] == nil) != (result["missing"] == nil))
        }

        let masked = try expectOK(
            try await client.request(
                "POST", "\(FS.root()):batchGet", json: #"{"documents":["\#(names[3])"],"mask":{"fieldPaths":["w"]}}"#))
        expectJSON(masked[0]?["found"]?["fields"], FS.json(#"{"w":{"integerValue":"2"}}"#))

        let bad = try await client.request("POST", "\(FS.root()):batchGet", json: #"{"documents":["\#(FS.name(c))"]}"#)
        expectError(bad, 400, "INVALID_ARGUMENT")
    }
}
