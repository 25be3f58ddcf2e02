import Foundation
import Synchronization

/// The queries issue's figures: an equality + orderBy + limit 20 query through a declared composite index at
/// three collection sizes (its cost should not grow with the collection), a count over 1,000,000 matching
/// documents, and read-write transactions on hot documents from 32 clients.
struct QueryBenchmark {
    let options: BenchOptions
    let wrk: WrkRunner
    /// More `hearth serve` arguments, e.g. `--store postgres://…` for the PostgreSQL engine's figures.
    var serverArguments: [String] = []
    /// How many clients send the seeding commits at once: 2 for SQLite's one writer; PostgreSQL's engine runs eight
    /// commits of a node at once (its commit lanes), so it is seeded by as many.
    var seedClients = 2

    /// One collection size's query figure.
    struct SizeResult: Sendable {
        var documents: Int
        var latency: WrkResult
        var indexEntriesRead: Int
        var documentsRead: Int
    }

    /// Everything this benchmark measures.
    struct Results: Sendable {
        var sizes: [SizeResult] = []
        var countMilliseconds: [Double] = []
        var countDocuments = 0
        var countIndexEntries = 0
        var transactionCommitsPerSecond = 0.0
        var transactionAbortRate = 0.0
        var seedDocumentsPerSecond = 0.0
    }

    static let owners = 100

    func run(workDirectory: URL) throws -> Results {
        let dataDirectory = workDirectory.appendingPathComponent("query-data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let collections = options.querySizes.map { "q\($0)" }
        let indexes = collections.map { collection in
            #"{"collectionGroup":"\#(collection)","queryScope":"COLLECTION","fields":[{"fieldPath":"owner","order":"ASCENDING"},{"fieldPath":"date","order":"DESCENDING"}]}"#
        }
        try Data(#"{"indexes":[\#(indexes.joined(separator: ","))]}"#.utf8)
            .write(to: dataDirectory.appendingPathComponent("hearth.indexes.json"))
        let server = try HearthServerProcess(
            binary: options.hearthPath, dataDirectory: dataDirectory, logDirectory: workDirectory,
            threads: options.serverThreads, extraArguments: serverArguments)
        var results = Results()
        do {
            let client = SetupClient(baseURL: server.baseURL)
            var seeded = 0
            let seedStart = ContinuousClock.now
            for (size, collection) in zip(options.querySizes, collections) {
                log("seeding \(size) documents into \(collection)")
                try seed(collection, count: size, client: client)
                seeded += size
            }
            results.seedDocumentsPerSecond = Double(seeded) / (ContinuousClock.now - seedStart).seconds
            for (size, collection) in zip(options.querySizes, collections) {
                let body = Self.runQueryBody(collection: collection, owner: "u7", explain: true)
                let explained = try client.expect(
                    "POST", LuaScripts.documentsPath + ":runQuery", json: body, bodyContains: "explainMetrics")
                let latency = try wrk.run(
                    WrkLoad(
                        name: "hearth, query on \(size) documents",
                        url: server.baseURL + LuaScripts.documentsPath + ":runQuery",
                        script: LuaScripts.post(
                            body: Self.runQueryBody(collection: collection, owner: "u7", explain: false)),
                        threads: 1, connections: 1, duration: min(options.duration, 5)))
                results.sizes.append(
                    SizeResult(
                        documents: size, latency: latency,
                        indexEntriesRead: Self.debugStat("index_entries_scanned", in: explained),
                        documentsRead: Self.debugStat("documents_scanned", in: explained)))
            }
            // Count over the largest collection: every document has kind == "todo".
            if let largest = collections.last {
                for _ in 0..<5 {
                    let start = ContinuousClock.now
                    let text = try client.expect(
                        "POST", LuaScripts.documentsPath + ":runAggregationQuery",
                        json: Self.countBody(collection: largest),
                        bodyContains: "aggregateFields")
                    results.countMilliseconds.append((ContinuousClock.now - start).seconds * 1000)
                    results.countDocuments = Self.integerValue(in: text) ?? 0
                }
                let explained = try client.expect(
                    "POST", LuaScripts.documentsPath + ":runAggregationQuery",
                    json: Self.countBody(collection: largest, explain: true), bodyContains: "explainMetrics")
                results.countIndexEntries = Self.debugStat("index_entries_scanned", in: explained)
            }
            (results.transactionCommitsPerSecond, results.transactionAbortRate) = try hotTransactions(client: client)
        } catch {
            _ = try? server.stop()
            throw BenchError("\(error)\n" + server.recentErrors())
        }
        _ = try server.stop()
        return results
    }

    /// Seeds through `:commit` batches of 500 from ``seedClients`` concurrent clients.
    private func seed(_ collection: String, count: Int, client: SetupClient) throws {
        let batches = stride(from: 0, to: count, by: 500).map { $0 }
        let failure = Mutex<(any Error)?>(nil)
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: seedClients) { _ in
            while failure.withLock({ $0 == nil }) {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < batches.count else { return }
                let start = batches[index]
                var random = SystemRandomNumberGenerator()
                let writes = (start..<min(start + 500, count)).map { number -> String in
                    let name = "projects/demo/databases/(default)/documents/\(collection)/d\(number)"
                    let date = Int.random(in: 0..<1_000_000_000, using: &random)
                    return
                        #"{"update":{"name":"\#(name)","fields":{"owner":{"stringValue":"u\#(number % Self.owners)"},"date":{"integerValue":"\#(date)"},"kind":{"stringValue":"todo"},"title":{"stringValue":"todo \#(number)"}}}}"#
                }
                do {
                    try client.expect(
                        "POST", LuaScripts.documentsPath + ":commit",
                        json: #"{"writes":[\#(writes.joined(separator: ","))]}"#,
                        bodyContains: "commitTime")
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// 32 clients run read-modify-write transactions on 100 hot counters for the load's duration, retrying on
    /// ABORTED; returns commits per second and the share of attempts that aborted.
    private func hotTransactions(client: SetupClient) throws -> (Double, Double) {
        let documents = LuaScripts.documentsPath
        let writes = (0..<100).map {
            #"{"update":{"name":"projects/demo/databases/(default)/documents/hot/c\#($0)","fields":{"n":{"integerValue":"0"}}}}"#
        }
        try client.expect(
            "POST", documents + ":commit", json: #"{"writes":[\#(writes.joined(separator: ","))]}"#,
            bodyContains: "commitTime")
        let committed = Mutex(0)
        let aborted = Mutex(0)
        let failure = Mutex<String?>(nil)
        let deadline = ContinuousClock.now + .seconds(min(options.duration, 10))
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            var random = SystemRandomNumberGenerator()
            while ContinuousClock.now < deadline, failure.withLock({ $0 == nil }) {
                let name = "projects/demo/databases/(default)/documents/hot/c\(Int.random(in: 0..<100, using: &random))"
                do {
                    let begun = try client.send("POST", documents + ":beginTransaction", json: "{}")
                    guard let transaction = Self.stringMember("transaction", in: begun.body) else {
                        failure.withLock { $0 = "beginTransaction: \(begun.body.prefix(200))" }
                        return
                    }
                    let read = try client.send(
                        "POST", documents + ":batchGet",
                        json: #"{"transaction":"\#(transaction)","documents":["\#(name)"]}"#)
                    let value = Self.integerValue(in: read.body) ?? 0
                    let commit = try client.send(
                        "POST", documents + ":commit",
                        json:
                            #"{"transaction":"\#(transaction)","writes":[{"update":{"name":"\#(name)","fields":{"n":{"integerValue":"\#(value + 1)"}}}}]}"#
                    )
                    switch commit.status {
                    case 200: committed.withLock { $0 += 1 }
                    case 409: aborted.withLock { $0 += 1 }
                    default: failure.withLock { $0 = "commit answered \(commit.status): \(commit.body.prefix(200))" }
                    }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                }
            }
        }
        if let message = failure.withLock({ $0 }) { throw BenchError("hot transactions: \(message)") }
        let elapsed = (ContinuousClock.now - start).seconds
        let commits = committed.withLock { $0 }
        let aborts = aborted.withLock { $0 }
        return (Double(commits) / elapsed, Double(aborts) / Double(max(commits + aborts, 1)))
    }

    static func runQueryBody(collection: String, owner: String, explain: Bool) -> String {
        let query =
            #"{"from":[{"collectionId":"\#(collection)"}],"where":{"fieldFilter":{"field":{"fieldPath":"owner"},"op":"EQUAL","value":{"stringValue":"\#(owner)"}}},"orderBy":[{"field":{"fieldPath":"date"},"direction":"DESCENDING"}],"limit":20}"#
        return explain
            ? #"{"structuredQuery":\#(query),"explainOptions":{"analyze":true}}"# : #"{"structuredQuery":\#(query)}"#
    }

    static func countBody(collection: String, explain: Bool = false) -> String {
        let body =
            #""structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"\#(collection)"}],"where":{"fieldFilter":{"field":{"fieldPath":"kind"},"op":"EQUAL","value":{"stringValue":"todo"}}}},"aggregations":[{"alias":"n","count":{}}]}"#
        return explain ? #"{\#(body),"explainOptions":{"analyze":true}}"# : "{\(body)}"
    }

    static func debugStat(_ name: String, in text: String) -> Int {
        guard let range = text.range(of: "\"\(name)\":\"") else { return -1 }
        return Int(text[range.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    static func integerValue(in text: String) -> Int? {
        guard let range = text.range(of: "\"integerValue\":\"") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber || $0 == "-" })
    }

    static func stringMember(_ name: String, in text: String) -> String? {
        guard let range = text.range(of: "\"\(name)\":\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
