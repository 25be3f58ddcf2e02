import Foundation
import HearthCore
import HearthTesting
import Synchronization
import Testing

/// The emulator wipe, durability across kill -9 and SIGTERM, metrics and logs: each test has its own server.
@Suite("Operations", .timeLimit(.minutes(2)))
struct OperationsTests {
    static let wipePath = "/emulator/v1/projects/demo/databases/(default)/documents"

    @Test("DELETE /emulator/v1/…/documents wipes every document, subcollections included")
    func emulatorWipe() async throws {
        try await withHearth { server in
            let client = server.client
            try await client.create("a", id: "1", fields: #"{"v":{"integerValue":"1"}}"#)
            try await client.create("a", id: "2")
            try await client.create("b", id: "1")
            try await client.create("a/1/sub", id: "x")
            let wipe = try await client.request("DELETE", Self.wipePath)
            #expect(wipe.status == 200, "\(wipe)")
            for path in ["a/1", "a/2", "b/1", "a/1/sub/x"] {
                expectError(try await client.document(path), 404, "NOT_FOUND")
            }
            #expect(try await client.listAll("a", pageSize: 10).names.isEmpty)
            let root = try expectOK(try await client.request("POST", "\(FS.root()):listCollectionIds", json: "{}"))
            #expect(root["collectionIds"] == nil || root["collectionIds"] == .array([]), "\(root)")
            let batch = try expectOK(
                try await client.request(
                    "POST", "\(FS.root()):batchGet", json: #"{"documents":["\#(FS.name("a/1"))"]}"#))
            #expect(batch[0]?["missing"] == .string(FS.name("a/1")))

            // The database works normally afterwards, including reusing the old IDs.
            try await client.create("a", id: "1", fields: #"{"v":{"integerValue":"2"}}"#)
            expectJSON(try await client.fields("a/1"), FS.json(#"{"v":{"integerValue":"2"}}"#))
            #expect(try expectOK(try await client.request("DELETE", Self.wipePath)) == .object([:]))
        }
    }

    @Test("a second server on a data directory in use is refused with exit status 1 and a clear message")
    func secondServerOnTheSameData() async throws {
        try await withHearth { first in
            let created = try await first.client.request(
                "POST", FS.path("owned"), query: [("documentId", "a")],
                json: FS.document(#"{"n":{"integerValue":"1"}}"#))
            #expect(created.status == 200)
            let second = try await runHearth(["serve", "--port", "0", "--dev", "--data", first.dataDirectory.path])
            #expect(second.termination == .exit(1))
            #expect(second.stderr.contains("is in use by another hearth server"))
            #expect(!second.stdout.contains("listening on"))
            // The first server is untouched: it still reads and writes.
            #expect(try await first.client.get(FS.path("owned/a")).status == 200)
            let again = try await first.client.request(
                "POST", FS.path("owned"), query: [("documentId", "b")],
                json: FS.document(#"{"n":{"integerValue":"2"}}"#))
            #expect(again.status == 200)
        }
    }

    @Test("every acknowledged create survives kill -9 and a restart on the same data directory")
    func durabilityAcrossKill9() async throws {
        let server = try await HearthProcess.start()
        let acknowledged = Locked<[String: Int]>([:])
        let target = 200
        let stop = Locked(false)

        try await withThrowingTaskGroup(of: Void.self) { group in
            // Writers that stop at the target, plus writers still running when the kill lands.
            for worker in 0..<8 {
                group.addTask {
                    var index = 0
                    while !stop.value {
                        let id = "w\(worker)-\(index)"
                        let value = worker * 100_000 + index
                        index += 1
                        guard
                            let result = try? await server.client.request(
                                "POST", FS.path("durable"), query: [("documentId", id)],
                                json: FS.document(
                                    #"{"v":{"integerValue":"\#(value)"},"pad":{"stringValue":"\#(String(repeating: "p", count: 200))"}}"#
                                ))
                        else { return }  // the server is gone
                        if result.status == 200 {
                            let count = acknowledged.withLock { acks in
                                acks[id] = value
                                return acks.count
                            }
                            if count >= target + 40 { return }
                        } else {
                            Issue.record("create failed before the kill: \(result)")
                            return
                        }
                    }
                }
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(60)
                while acknowledged.withLock({ $0.count }) < target {
                    if ContinuousClock.now > deadline {
                        throw HarnessError("only \(acknowledged.withLock { $0.count }) creates acknowledged")
                    }
                    try await Task.sleep(for: .milliseconds(2))
                }
                let termination = try await server.kill9()
                #expect(termination == .signal(SIGKILL))
                stop.withLock { $0 = true }
            }
            try await group.waitForAll()
        }

        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= target)
        let restarted = try await server.restart()
        let listed = try await restarted.client.listAll("durable", pageSize: 1000)
        let present = Set(listed.names.map(FS.id(of:)))
        let lost = acked.keys.filter { !present.contains($0) }.sorted()
        #expect(lost.isEmpty, "\(lost.count) acknowledged documents lost after kill -9: \(lost.prefix(20))")
        // Spot-check the content of some.
        for id in acked.keys.sorted().prefix(10) {
            let fields = try await restarted.client.fields("durable/\(id)")
            #expect(fields["v"] == FS.json(#"{"integerValue":"\#(acked[id]!)"}"#))
        }
        let termination = try await restarted.stop()
        #expect(termination == .exit(0))
    }

    @Test("SIGTERM during concurrent commits: exit status 0 and every acknowledged commit is durable")
    func gracefulShutdown() async throws {
        let server = try await HearthProcess.start()
        let acknowledged = Locked<[String]>([])  // commit keys
        let writesPerCommit = 150
        let padding = String(repeating: "q", count: 1500)

        func writes(_ key: String) -> String {
            (0..<writesPerCommit).map { index in
                #"{"update":{"name":"\#(FS.name("shutdown/\(key)-\(index)"))","fields":{"k":{"stringValue":"\#(key)"},"pad":{"stringValue":"\#(padding)"}}},"updateTransforms":[{"fieldPath":"at","setToServerValue":"REQUEST_TIME"}]}"#
            }.joined(separator: ",")
        }

        let termination = try await withThrowingTaskGroup(of: Termination?.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    for index in 0..<10_000 {
                        let key = "c\(worker)x\(index)"
                        guard let result = try? await server.client.commit("[\(writes(key))]") else { return nil }
                        if result.status == 200 {
                            acknowledged.withLock { $0.append(key) }
                        } else if result.status < 500 {
                            Issue.record("unexpected client error during shutdown: \(result)")
                            return nil
                        } else {
                            return nil  // refusing work while stopping is fine
                        }
                    }
                    return nil
                }
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(60)
                while acknowledged.withLock({ $0.count }) < 12 {
                    if ContinuousClock.now > deadline { throw HarnessError("commits are not being acknowledged") }
                    try await Task.sleep(for: .milliseconds(2))
                }
                return try await server.stop()
            }
            var termination: Termination?
            for try await result in group { if let result { termination = result } }
            return termination
        }
        #expect(termination == .exit(0), "stderr:\n\(server.stderr.suffix(2000))")
        #expect(server.stderr.contains(#""msg":"stopped""#), "the server logs a clean stop")

        let acked = acknowledged.withLock { $0 }
        let restarted = try await server.restart()
        let listed = try await restarted.client.listAll("shutdown", pageSize: 5000)
        let present = Set(listed.names.map(FS.id(of:)))
        var missing: [String] = []
        for key in acked {
            for index in 0..<writesPerCommit where !present.contains("\(key)-\(index)") {
                missing.append("\(key)-\(index)")
            }
        }
        #expect(
            missing.isEmpty,
            "\(missing.count) documents of \(acked.count) acknowledged commits are missing: \(missing.prefix(10))")
        // Commits are atomic: every commit is wholly present or wholly absent.
        let keys = Set(present.map { String($0.split(separator: "-").first!) })
        for key in keys {
            let count = (0..<writesPerCommit).filter { present.contains("\(key)-\($0)") }.count
            #expect(count == writesPerCommit, "commit \(key) is partially present: \(count) of \(writesPerCommit)")
        }
        #expect(try await restarted.stop() == .exit(0))
    }

    static func metric(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test("/metrics counts requests by route and status, commits, database size, latency histograms")
    func metrics() async throws {
        try await withHearth { server in
            let client = server.client
            let before = try await client.get("/metrics")
            #expect(before.status == 200)
            #expect(before.headers["content-type"]?.hasPrefix("text/plain") == true, "\(before.headers)")
            let commitsBefore = try #require(Self.metric(before.text, "hearth_commits_total"), "\(before.text)")

            try await client.create("m", id: "d", fields: #"{"v":{"integerValue":"1"}}"#)
            for _ in 0..<7 { try expectOK(try await client.document("m/d")) }
            expectError(try await client.document("m/missing"), 404, "NOT_FOUND")
            for index in 0..<2 {
                try expectOK(
                    try await client.commit(#"[{"update":{"name":"\#(FS.name("m/c\(index)"))","fields":{}}}]"#))
            }

            let after = try await client.get("/metrics")
            let text = after.text
            #expect(
                Self.metric(text, #"hearth_http_requests_total{route="documents.get",status="200"}"#) == 7, "\(text)")
            #expect(Self.metric(text, #"hearth_http_requests_total{route="documents.get",status="404"}"#) == 1)
            #expect(Self.metric(text, #"hearth_http_requests_total{route="documents.commit",status="200"}"#) == 2)
            #expect(Self.metric(text, #"hearth_http_requests_total{route="documents.create",status="200"}"#) == 1)
            let commitsAfter = try #require(Self.metric(text, "hearth_commits_total"))
            #expect(commitsAfter >= commitsBefore + 3, "create + 2 commits: \(commitsBefore) → \(commitsAfter)")

            // Tree writes count too: a commit per write, a write per location (a multi-path PATCH writes several);
            // a stale conditional write applies nothing and counts as neither commit nor failure.
            let writesBefore = try #require(Self.metric(text, "hearth_writes_total"))
            let failedBefore = try #require(Self.metric(text, "hearth_commits_failed_total"))
            try expectOK(await client.tree("PUT", "metrics/a", "1"))
            try expectOK(await client.tree("PATCH", "metrics", #"{"b":2,"c/d":3}"#))
            #expect(try await client.tree("PUT", "metrics/a", "5", headers: ["if-match": "stale"]).status == 412)
            let tree = try await client.get("/metrics").text
            #expect(Self.metric(tree, "hearth_commits_total") == commitsAfter + 2, "\(tree)")
            #expect(Self.metric(tree, "hearth_writes_total") == writesBefore + 3)
            #expect(Self.metric(tree, "hearth_commits_failed_total") == failedBefore)
            #expect((Self.metric(text, "hearth_database_bytes") ?? 0) > 0)
            #expect(Self.metric(text, "hearth_http_open_connections") != nil)
            let wal = try #require(Self.metric(tree, "hearth_wal_bytes"))
            // SQLite's write-ahead log is a file of the database's own; PostgreSQL's is the whole cluster's.
            if !TestStore.isPostgres {
                #expect(
                    wal > 0 && wal <= (Self.metric(tree, "hearth_database_bytes") ?? 0), "the log is part of the total")
            }
            #expect(Self.metric(tree, "hearth_tree_listeners") == 0)
            #expect(Self.metric(tree, "hearth_listen_targets") == 0)
            // A tree stream held open is counted while it is open.
            let stream = try RawSocket(port: server.port)
            try stream.send(
                "GET /metrics/a.json HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            var listeners: Double?
            for _ in 0..<200 {
                listeners = Self.metric(try await client.get("/metrics").text, "hearth_tree_listeners")
                if listeners == 1 { break }
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(listeners == 1)
            stream.shutdownWrite()

            #expect(text.contains("# TYPE hearth_http_requests_total counter"))
            #expect(text.contains("# TYPE hearth_http_request_duration_seconds histogram"))
            #expect(
                Self.metric(text, #"hearth_http_request_duration_seconds_bucket{route="documents.get",le="+Inf"}"#) == 8
            )
            #expect(Self.metric(text, #"hearth_http_request_duration_seconds_count{route="documents.get"}"#) == 8)
            #expect((Self.metric(text, #"hearth_http_request_duration_seconds_sum{route="documents.get"}"#) ?? -1) >= 0)
            let buckets = text.split(separator: "\n").filter {
                $0.hasPrefix(#"hearth_http_request_duration_seconds_bucket{route="documents.get","#)
            }
            let counts = buckets.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            #expect(counts.count >= 2 && counts == counts.sorted(), "buckets are cumulative: \(buckets)")
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                #expect(
                    line.split(separator: " ").count == 2 && Double(line.split(separator: " ").last!) != nil,
                    "not a sample line: \(line)")
            }
        }
    }

    @Test("--log-level debug writes one JSON object per line, with request lines and no document content")
    func logs() async throws {
        let secretID = "zq7ZebraDocIdXk2"
        let secretValue = "s3cr3tPayloadQ9v"
        let secretCollection = "hiddenColl8Rw"
        var options = HearthProcess.Options()
        options.logLevel = "debug"
        let server = try await HearthProcess.start(options)
        let client = server.client
        let c = secretCollection
        try await client.create(c, id: secretID, fields: #"{"secret":{"stringValue":"\#(secretValue)"}}"#)
        try expectOK(try await client.document("\(c)/\(secretID)"))
        try expectOK(try await client.document("\(c)/\(secretID)", query: [("mask.fieldPaths", "secret")]))
        try expectOK(try await client.get(FS.path(c)))
        try expectOK(
            try await client.request(
                "PATCH", FS.path("\(c)/\(secretID)"), query: [("updateMask.fieldPaths", "other")],
                json: FS.document(#"{"other":{"stringValue":"\#(secretValue)-2"}}"#)))
        try expectOK(
            try await client.commit(
                #"[{"update":{"name":"\#(FS.name("\(c)/\(secretID)-2"))","fields":{"s":{"stringValue":"\#(secretValue)"}}},"updateTransforms":[{"fieldPath":"t","setToServerValue":"REQUEST_TIME"}]}]"#
            ))
        try expectOK(
            try await client.request(
                "POST", "\(FS.root()):batchGet", json: #"{"documents":["\#(FS.name("\(c)/\(secretID)"))"]}"#))
        // Failures echo the input in the response, never in the log.
        expectError(
            try await client.request("POST", FS.path(c), query: [("documentId", secretID)], json: "{}"), 409,
            "ALREADY_EXISTS")
        expectError(
            try await client.request(
                "POST", FS.path(c), json: FS.document(#"{"x":{"integerValue":"\#(secretValue)"}}"#)), 400,
            "INVALID_ARGUMENT")
        expectError(
            try await client.document("\(c)/\(secretID)", query: [("\(secretValue)", "1")]), 400, "INVALID_ARGUMENT")
        try expectOK(try await client.request("DELETE", FS.path("\(c)/\(secretID)")))
        #expect(try await server.stop() == .exit(0))

        let stderr = server.stderr
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: true)
        var requests: [JSONValue] = []
        for line in lines {
            guard let object = try? JSONParser.parse(String(line)), case .object(let members) = object else {
                Issue.record("log line is not a JSON object: \(line)")
                continue
            }
            #expect(
                members["level"]?.stringValue != nil && members["msg"]?.stringValue != nil
                    && members["ts"]?.stringValue != nil, "\(line)")
            if members["msg"] == .string("request") { requests.append(object) }
        }
        #expect(requests.count >= 11, "one request line per request: \(requests.count)")
        #expect(
            requests.contains {
                $0["method"] == .string("POST") && $0["status"] == .integer(200)
                    && $0["route"] == .string("documents.create")
            })
        #expect(requests.contains { $0["status"] == .integer(409) })
        for secret in [secretID, secretValue, secretCollection] {
            #expect(!stderr.contains(secret), "the log must not contain \(secret)")
        }
    }
}
