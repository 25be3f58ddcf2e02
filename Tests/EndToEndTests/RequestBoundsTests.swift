import Foundation
import HearthCore
import HearthTesting
import Testing

/// The work of one request is bounded, and slow work never holds the threads that accept and parse: a fresh
/// `GET /healthz` is answered while queries that take seconds run, a `batchGet` names a bounded number of
/// documents, and a read's answer holds a bounded number of bytes.
@Suite(.timeLimit(.minutes(5)))
struct RequestBoundsTests {
    /// Writes `count` documents of about `bytes` bytes each into `collection`, 250 to a commit.
    private func seed(_ client: HTTPClient, _ collection: String, count: Int, bytes: Int) async throws {
        let filler = String(repeating: "x", count: bytes)
        for start in stride(from: 0, to: count, by: 250) {
            let writes = (start..<min(count, start + 250)).map { index in
                #"{"update":{"name":"\#(FS.name("\(collection)/d\(index)"))","fields":{"n":{"integerValue":"\#(index)"},"pad":{"stringValue":"\#(filler)"}}}}"#
            }
            try expectOK(try await client.commit("[" + writes.joined(separator: ",") + "]"))
        }
    }

    /// One HTTP thread, and 24 queries sent at once, each reading and decoding 2,000 documents of 8 KB to skip
    /// them (`offset`): run on that thread, they held a fresh `/healthz` for seconds, behind every query whose head
    /// was in (before the read workers, 3 of 20 fresh probes timed out behind four large `batchGet`s).
    @Test func healthzIsAnsweredWhileHeavyQueriesRun() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--threads", "1"]
        try await withHearth(options) { server in
            let collection = FS.unique("heavy")
            try await seed(server.client, collection, count: 2000, bytes: 8000)
            let body =
                #"{"structuredQuery":{"from":[{"collectionId":"\#(collection)"}],"orderBy":[{"field":{"fieldPath":"n"}}],"offset":1995}}"#
            let request =
                "POST \(FS.root()):runQuery HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            let started = ContinuousClock.now
            var heavy: [RawSocket] = []
            for _ in 0..<24 {
                let socket = try RawSocket(port: server.port, timeout: 120)
                try socket.send(request)
                heavy.append(socket)
            }
            // Once the queries are in, a new connection asks for /healthz.
            try await Task.sleep(for: .milliseconds(300))
            let probeStart = ContinuousClock.now
            let probe = try RawSocket(port: server.port, timeout: 60)
            try probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let reply = probe.readAll()
            let probeTime = ContinuousClock.now - probeStart
            #expect(reply.status == 200, "\(reply.text)")
            for socket in heavy {
                let answer = socket.readAll()
                #expect(answer.status == 200, "\(answer.text.prefix(300))")
                #expect(answer.body.contains("d1999"), "the query must have read to its end")
            }
            let queries = ContinuousClock.now - started
            // The queries together take seconds; the probe must not wait for them.
            #expect(probeTime < .seconds(2), "healthz took \(probeTime) while the queries took \(queries)")
        }
    }

    @Test func batchGetNamesAreBounded() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--max-batch-get", "3"]
        try await withHearth(options) { server in
            let collection = FS.unique("names")
            func batchGet(_ count: Int) async throws -> HTTPResult {
                let names = (0..<count).map { "\"\(FS.name("\(collection)/d\($0)"))\"" }
                return try await server.client.request(
                    "POST", "\(FS.root()):batchGet", json: #"{"documents":[\#(names.joined(separator: ","))]}"#)
            }
            let allowed = try await batchGet(3)
            #expect(allowed.status == 200, "\(allowed)")
            let refused = try await batchGet(4)
            #expect(refused.status == 400, "\(refused)")
            let error = try refused.json()["error"]
            #expect(error?["status"] == .string("INVALID_ARGUMENT"))
            #expect(error?["message"]?.stringValue?.contains("at most 3 documents") == true, "\(refused)")
        }
    }

    /// With a 40 KB bound on an answer, 20 documents of 4 KB pass it: a query and a batchGet over all of them
    /// fail with RESOURCE_EXHAUSTED, smaller ones answer, and listing pages end early but together list each
    /// document once.
    @Test func answersAreBoundedInBytes() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--max-result-bytes", "40000"]
        try await withHearth(options) { server in
            let client = server.client
            let collection = FS.unique("bytes")
            try await seed(client, collection, count: 20, bytes: 4000)

            let all = try await client.runQuery(#"{"from":[{"collectionId":"\#(collection)"}]}"#)
            #expect(all.status == 429, "\(all)")
            #expect(try all.json()["error"]?["status"] == .string("RESOURCE_EXHAUSTED"))
            #expect(try all.json()["error"]?["message"]?.stringValue?.contains("--max-result-bytes") == true)
            let few = try await client.runQuery(#"{"from":[{"collectionId":"\#(collection)"}],"limit":5}"#)
            #expect(few.status == 200, "\(few)")
            #expect(try few.json().arrayValue?.count == 5)

            let names = (0..<20).map { "\"\(FS.name("\(collection)/d\($0)"))\"" }
            let batch = try await client.request(
                "POST", "\(FS.root()):batchGet", json: #"{"documents":[\#(names.joined(separator: ","))]}"#)
            #expect(batch.status == 429, "\(batch)")
            #expect(try batch.json()["error"]?["status"] == .string("RESOURCE_EXHAUSTED"))

            let listed = try await client.listAll(collection, pageSize: 100, orderBy: nil)
            #expect(Set(listed.names).count == 20)
            #expect(listed.names.count == 20)
            #expect(listed.pages > 1, "a page past the bound ends early")
        }
    }

    /// The same bound on a listing in another order than by name: its pages end early too.
    @Test func orderedListingPagesAreBoundedInBytes() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--max-result-bytes", "40000"]
        try await withHearth(options) { server in
            let collection = FS.unique("bytes")
            try await seed(server.client, collection, count: 20, bytes: 4000)
            let listed = try await server.client.listAll(collection, pageSize: 100, orderBy: "n")
            #expect(Set(listed.names).count == 20)
            #expect(listed.names.count == 20)
            #expect(listed.pages > 1, "a page past the bound ends early")
        }
    }
}
