import Foundation

/// `hearth-bench --store postgres`: the PostgreSQL engine's figures beside the SQLite engine's, measured in one run
/// on one machine, each beside its raw baseline (raw SQLite through HearthSQLite, raw PostgreSQL through libpq, same
/// durability). It starts a throwaway PostgreSQL cluster itself (``BenchPostgresCluster``), and each Hearth figure
/// gets a fresh database (a fresh data directory for SQLite).
struct StoreBenchmark {
    let options: BenchOptions

    /// The HTTP figures of one engine on one node.
    struct EngineFigures: Sendable {
        var create: WrkResult
        var get: WrkResult
        var commit: WrkResult
    }

    func run() throws -> StoreBenchReport {
        let workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hearth-bench-store-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workDirectory) }
        let wrk = try WrkRunner(path: options.wrkPath, workDirectory: workDirectory)
        let cluster = try BenchPostgresCluster()
        defer { cluster.stop() }
        let sqlite = SQLiteBaseline(directory: workDirectory)
        var report = StoreBenchReport(
            machine: .current(), options: options, wrkVersion: wrk.version(), sqliteVersion: sqlite.sqliteVersion(),
            postgresVersion: cluster.version)
        log("machine: \(report.machine.processors) CPU(s), \(report.machine.cpuModel)")
        let duration = Duration.seconds(options.duration)

        // ── raw baselines, SQLite then PostgreSQL ──
        report.sqliteSingle = try sqlite.measure(perTransaction: 1, ids: .automatic, duration: duration)
        report.sqliteBulk = try sqlite.measure(
            perTransaction: Benchmark.commitWrites, ids: .commitScript, duration: duration)
        let postgres = PostgresBaseline(cluster: cluster)
        report.postgresSingle = try postgres.measureInserts(perTransaction: 1, clients: 1, duration: duration)
        report.postgresConcurrent = try postgres.measureInserts(
            perTransaction: 1, clients: options.connections, duration: duration)
        report.postgresBulk = try postgres.measureInserts(
            perTransaction: Benchmark.commitWrites, clients: 1, duration: duration)
        report.postgresReads = try postgres.measureReads(
            count: options.seedDocuments, clients: options.connections, duration: duration)

        // ── Hearth over HTTP: one node on each engine, then three nodes on one PostgreSQL database ──
        report.sqlite = try engineFigures(
            label: "SQLite", extraArguments: [], directory: workDirectory.appendingPathComponent("sqlite"), wrk: wrk)
        try cluster.createDatabase("one_node")
        report.postgres = try engineFigures(
            label: "PostgreSQL", extraArguments: Self.postgresArguments(cluster.url(database: "one_node")),
            directory: workDirectory.appendingPathComponent("postgres"), wrk: wrk)
        try cluster.createDatabase("three_nodes")
        report.postgresThreeNodesCreate = try threeNodeCreates(
            url: cluster.url(database: "three_nodes"), directory: workDirectory.appendingPathComponent("three"),
            wrk: wrk)

        // ── the query on the largest collection, each engine ──
        if let largest = options.querySizes.max() {
            var queryOptions = options
            queryOptions.querySizes = [largest]
            log("query figures on SQLite, \(largest) documents")
            report.sqliteQueries = try QueryBenchmark(options: queryOptions, wrk: wrk)
                .run(workDirectory: Self.directory(workDirectory, "query-sqlite"))
            try cluster.createDatabase("queries")
            log("query figures on PostgreSQL, \(largest) documents")
            var postgresQueries = QueryBenchmark(options: queryOptions, wrk: wrk)
            postgresQueries.serverArguments = Self.postgresArguments(cluster.url(database: "queries"))
            postgresQueries.seedClients = Self.postgresSeedClients
            report.postgresQueries = try postgresQueries.run(
                workDirectory: Self.directory(workDirectory, "query-postgres"))
        }

        // ── listener delivery: one node on each engine, three nodes on PostgreSQL ──
        #if os(Linux)
        if options.storeListeners > 0 {
            let listen = StoreListenBenchmark(options: options, workDirectory: workDirectory)
            report.listeners = try listen.run(cluster: cluster)
        }
        #endif
        return report
    }

    /// Clients seeding the PostgreSQL query collection at once: one per commit lane of a node.
    static let postgresSeedClients = 8

    /// `--store URL --project demo`: a PostgreSQL database serves one project.
    static func postgresArguments(_ url: String) -> [String] { ["--store", url, "--project", "demo"] }

    private static func directory(_ parent: URL, _ name: String) throws -> URL {
        let url = parent.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Creates, point GETs and commits of 500 on one node, the loads `Benchmark` puts on the SQLite server.
    private func engineFigures(
        label: String, extraArguments: [String], directory: URL, wrk: WrkRunner
    ) throws
        -> EngineFigures
    {
        let data = try Self.directory(directory, "data")
        let server = try HearthServerProcess(
            binary: options.hearthPath, dataDirectory: data, logDirectory: directory, threads: options.serverThreads,
            extraArguments: extraArguments)
        do {
            let client = SetupClient(baseURL: server.baseURL)
            let documents = LuaScripts.documentsPath
            try client.expect(
                "POST", "\(documents)/bench", json: LuaScripts.createBody, bodyContains: "/documents/bench/")
            let create = try wrk.run(
                WrkLoad(
                    name: "\(label), create", url: server.baseURL + documents + "/bench", script: LuaScripts.create(),
                    threads: options.wrkThreads, connections: options.connections, duration: options.duration))

            log("\(label): seeding \(options.seedDocuments) documents through :commit")
            var next = 0
            while next < options.seedDocuments {
                let ids = (next..<min(next + Benchmark.commitWrites, options.seedDocuments)).map(Benchmark.docID)
                try client.expect(
                    "POST", "\(documents):commit", json: LuaScripts.commitBody(collection: "reads", ids: ids),
                    bodyContains: "writeResults")
                next += ids.count
            }
            try client.expect(
                "GET", "\(documents)/reads/\(Benchmark.docID(options.seedDocuments - 1))", bodyContains: "hello")
            let get = try wrk.run(
                WrkLoad(
                    name: "\(label), GET", url: server.baseURL + documents + "/reads",
                    script: LuaScripts.randomGet(collection: "reads", count: options.seedDocuments),
                    threads: options.wrkThreads, connections: options.connections, duration: options.duration))

            let nonce = String(UUID().uuidString.prefix(8)).lowercased()
            let commit = try wrk.run(
                WrkLoad(
                    name: "\(label), commit of \(Benchmark.commitWrites)", url: server.baseURL + documents + ":commit",
                    script: LuaScripts.commit(collection: "bulk", writes: Benchmark.commitWrites, nonce: nonce),
                    threads: options.wrkThreads, connections: options.commitConnections, duration: options.duration))
            let status = try server.stop()
            guard status == 0 else {
                throw BenchError(
                    "hearth (\(label)) exited with status \(status) after SIGTERM\n" + server.recentErrors())
            }
            return EngineFigures(create: create, get: get, commit: commit)
        } catch {
            _ = try? server.stop()
            throw BenchError("\(error)\n" + server.recentErrors())
        }
    }

    /// Creates over three nodes on one database: one wrk, its threads spread over the nodes (`thread.addr`), as
    /// many connections on each node.
    private func threeNodeCreates(url: String, directory: URL, wrk: WrkRunner) throws -> WrkResult {
        var nodes: [HearthServerProcess] = []
        defer { for node in nodes { _ = try? node.stop() } }
        for number in 1...3 {
            let nodeDirectory = try Self.directory(directory, "node\(number)")
            nodes.append(
                try HearthServerProcess(
                    binary: options.hearthPath, dataDirectory: try Self.directory(nodeDirectory, "data"),
                    logDirectory: nodeDirectory, threads: options.serverThreads,
                    extraArguments: Self.postgresArguments(url)))
        }
        do {
            let ports = nodes.map { $0.baseURL.split(separator: ":").last.map(String.init) ?? "" }
            for node in nodes {
                try SetupClient(baseURL: node.baseURL).expect(
                    "POST", LuaScripts.documentsPath + "/bench", json: LuaScripts.createBody,
                    bodyContains: "/documents/bench/")
            }
            // A multiple of three connections, so each node gets as many.
            let connections = max(3, (options.connections + 2) / 3 * 3)
            let result = try wrk.run(
                WrkLoad(
                    name: "PostgreSQL three nodes, create", url: nodes[0].baseURL + LuaScripts.documentsPath + "/bench",
                    script: LuaScripts.spread(over: ports) + LuaScripts.create(), threads: 3, connections: connections,
                    duration: options.duration))
            for node in nodes {
                let status = try node.stop()
                guard status == 0 else { throw BenchError("a hearth node exited with status \(status) after SIGTERM") }
            }
            return result
        } catch {
            throw BenchError("\(error)\n" + nodes.map { $0.recentErrors() }.joined())
        }
    }
}
