import Foundation

/// The whole run, in order: machine description, HTTP baseline, storage baseline, then Hearth itself.
/// Every load is bounded by `options.duration`; everything listens on 127.0.0.1 only.
struct Benchmark {
    let options: BenchOptions

    /// Documents per commit in the bulk-write figure.
    static let commitWrites = 500

    func run() throws -> BenchReport {
        let workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hearth-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workDirectory) }

        let wrk = try WrkRunner(path: options.wrkPath, workDirectory: workDirectory)
        let sqlite = SQLiteBaseline(directory: workDirectory)
        let duration = Duration.seconds(options.duration)
        var report = BenchReport(
            machine: .current(), options: options, wrkVersion: wrk.version(), sqliteVersion: sqlite.sqliteVersion(),
            revision: Self.sourceRevision())
        log("machine: \(report.machine.processors) CPU(s), \(report.machine.cpuModel)")
        if options.rulesOnly {
            report.rules = try RulesBenchmark(options: options, wrk: wrk).run(workDirectory: workDirectory)
            return report
        }

        // ── HTTP baseline: the bare handler under exactly the loads Hearth gets ──
        try BareHandler.withServer(threads: options.serverThreads) { url in
            report.bareCreate = try wrk.run(createLoad(url, name: "bare handler, POST"))
            report.bareGet = try wrk.run(getLoad(url, name: "bare handler, GET"))
        }

        // ── storage baseline ──
        report.sqliteSingle = try sqlite.measure(perTransaction: 1, ids: .automatic, duration: duration)
        report.sqliteGrouped = try sqlite.measure(perTransaction: 32, ids: .automatic, duration: duration)
        report.sqliteBulk = try sqlite.measure(
            perTransaction: Self.commitWrites, ids: .commitScript, duration: duration)

        // ── Hearth ──
        if !options.baselinesOnly {
            try measureHearth(wrk: wrk, workDirectory: workDirectory, into: &report)
            if !options.querySizes.isEmpty {
                report.queries = try QueryBenchmark(options: options, wrk: wrk).run(workDirectory: workDirectory)
            }
            if options.treeLeaves > 0 {
                report.tree = try TreeBenchmark(options: options, wrk: wrk).run(workDirectory: workDirectory)
            }
            if options.measureRules {
                report.rules = try RulesBenchmark(options: options, wrk: wrk).run(workDirectory: workDirectory)
            }
        }
        return report
    }

    private func measureHearth(wrk: WrkRunner, workDirectory: URL, into report: inout BenchReport) throws {
        let dataDirectory = workDirectory.appendingPathComponent("hearth-data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let server = try HearthServerProcess(
            binary: options.hearthPath, dataDirectory: dataDirectory, logDirectory: workDirectory,
            threads: options.serverThreads)
        do {
            let client = SetupClient(baseURL: server.baseURL)
            let documents = LuaScripts.documentsPath

            // Creates: one request first, so a broken endpoint fails with its own answer rather than wrk's count.
            try client.expect(
                "POST", "\(documents)/bench", json: LuaScripts.createBody, bodyContains: "/documents/bench/")
            report.hearthCreate = try wrk.run(createLoad(server.baseURL, name: "hearth, create"))

            // Point GETs of seeded documents.
            log("seeding \(options.seedDocuments) documents through :commit")
            var next = 0
            while next < options.seedDocuments {
                let ids = (next..<min(next + Self.commitWrites, options.seedDocuments)).map { Self.docID($0) }
                try client.expect(
                    "POST", "\(documents):commit", json: LuaScripts.commitBody(collection: "reads", ids: ids),
                    bodyContains: "writeResults")
                next += ids.count
            }
            try client.expect(
                "GET", "\(documents)/reads/\(Self.docID(options.seedDocuments - 1))", bodyContains: "hello")
            report.hearthGet = try wrk.run(getLoad(server.baseURL, name: "hearth, GET"))

            // The same point reads over gRPC (`GetDocument`, h2c on the same port), then commits of one set over
            // REST (`:commit`) and over gRPC (`Commit`), each pair in the same server one after the other.
            let port = Int(server.baseURL.split(separator: ":").last ?? "") ?? 0
            let seeded = options.seedDocuments
            report.grpcGet = try GRPCLoadRunner.run(
                grpcLoad(port: port, name: "hearth, gRPC GetDocument", method: GRPCBenchMessages.getDocument) {
                    _, _ in GRPCBenchMessages.getDocument(path: "reads/" + Self.docID(Int.random(in: 0..<seeded)))
                })
            let singleNonce = String(UUID().uuidString.prefix(8)).lowercased()
            try client.expect(
                "POST", "\(documents):commit",
                json: LuaScripts.commitBody(collection: "single", ids: ["check\(singleNonce)"]),
                bodyContains: "writeResults")
            report.hearthCommitOne = try wrk.run(
                WrkLoad(
                    name: "hearth, commit of 1", url: server.baseURL + documents + ":commit",
                    script: LuaScripts.commit(collection: "single", writes: 1, nonce: singleNonce),
                    threads: options.wrkThreads, connections: options.connections, duration: options.duration))
            report.grpcCommitOne = try GRPCLoadRunner.run(
                grpcLoad(port: port, name: "hearth, gRPC Commit of 1", method: GRPCBenchMessages.commit) {
                    connection, sequence in
                    GRPCBenchMessages.commitOneSet(path: "single/\(singleNonce)g\(connection)s\(sequence)")
                })

            // Commits of 500 new documents each.
            let nonce = String(UUID().uuidString.prefix(8)).lowercased()
            try client.expect(
                "POST", "\(documents):commit",
                json: LuaScripts.commitBody(
                    collection: "bulk", ids: (0..<Self.commitWrites).map { "check\(nonce)w\($0)" }),
                bodyContains: "writeResults")
            report.hearthCommit = try wrk.run(
                WrkLoad(
                    name: "hearth, commit of \(Self.commitWrites)", url: server.baseURL + documents + ":commit",
                    script: LuaScripts.commit(collection: "bulk", writes: Self.commitWrites, nonce: nonce),
                    threads: options.wrkThreads, connections: options.commitConnections, duration: options.duration))

            report.hearthPeakRSS = server.peakResidentBytes()
        } catch {
            _ = try? server.stop()
            throw BenchError("\(error)\n" + server.recentErrors())
        }
        report.hearthExitStatus = try server.stop()
        guard report.hearthExitStatus == 0 else {
            throw BenchError(
                "hearth exited with status \(report.hearthExitStatus ?? -1) after SIGTERM\n"
                    + server.recentErrors())
        }
    }

    private func createLoad(_ baseURL: String, name: String) -> WrkLoad {
        WrkLoad(
            name: name, url: baseURL + LuaScripts.documentsPath + "/bench", script: LuaScripts.create(),
            threads: options.wrkThreads, connections: options.connections, duration: options.duration)
    }

    private func getLoad(_ baseURL: String, name: String) -> WrkLoad {
        WrkLoad(
            name: name, url: baseURL + LuaScripts.documentsPath + "/reads",
            script: LuaScripts.randomGet(collection: "reads", count: options.seedDocuments),
            threads: options.wrkThreads, connections: options.connections, duration: options.duration)
    }

    /// A gRPC load with as many calls in flight as the wrk loads have connections, `wrkThreads` connections.
    private func grpcLoad(
        port: Int, name: String, method: String,
        request: @escaping @Sendable (_ connection: Int, _ sequence: Int) -> [UInt8]
    ) -> GRPCLoad {
        let connections = max(1, options.wrkThreads)
        return GRPCLoad(
            name: name, port: port, method: method, connections: connections,
            streams: max(1, options.connections / connections), duration: options.duration, request: request)
    }

    /// `abc1234` or `abc1234 with local changes` from git, when it is installed and this is a checkout.
    private static func sourceRevision() -> String? {
        guard let git = ChildProcess.findExecutable("git"),
            let commit = try? ChildProcess.capture(git, ["rev-parse", "--short", "HEAD"], timeout: .seconds(10))
        else { return nil }
        let status = (try? ChildProcess.capture(git, ["status", "--porcelain"], timeout: .seconds(10))) ?? ""
        let hash = commit.trimmingCharacters(in: .whitespacesAndNewlines)
        return status.isEmpty ? hash : hash + " with local changes"
    }

    /// The ID of the n-th seeded document, as the GET script spells it.
    static func docID(_ number: Int) -> String {
        let digits = String(number)
        return "doc" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
