import Foundation

/// Every figure of one `hearth-bench --store postgres` run, and its Markdown rendering: the PostgreSQL engine on one
/// and three nodes beside the SQLite engine, each beside its raw baseline.
struct StoreBenchReport {
    var machine: MachineInfo
    var options: BenchOptions
    var wrkVersion: String
    var sqliteVersion: String
    var postgresVersion: String
    var date = Date()

    var sqliteSingle: SQLiteBaseline.Result?
    var sqliteBulk: SQLiteBaseline.Result?
    var postgresSingle: PostgresBaseline.Result?
    var postgresConcurrent: PostgresBaseline.Result?
    var postgresBulk: PostgresBaseline.Result?
    var postgresReads: PostgresBaseline.Result?
    var sqlite: StoreBenchmark.EngineFigures?
    var postgres: StoreBenchmark.EngineFigures?
    var postgresThreeNodesCreate: WrkResult?
    var sqliteQueries: QueryBenchmark.Results?
    var postgresQueries: QueryBenchmark.Results?
    #if os(Linux)
    var listeners: [StoreListenBenchmark.Run] = []
    #endif

    func markdown() -> String {
        var out = "# Hearth benchmark: PostgreSQL beside SQLite (`hearth-bench --store postgres`)\n\n"
        out += "- Run: \(ISO8601DateFormatter().string(from: date))"
        out += "\n- Machine: \(machine.processors) CPU(s), \(machine.cpuModel), "
        out += "\(machine.operatingSystem)\(machine.kernel.isEmpty ? "" : ", Linux \(machine.kernel)")"
        out += machine.loadAverage.map { "; load average at start \($0)" } ?? ""
        out += "\n- Tools: \(wrkVersion); SQLite \(sqliteVersion) (WAL, synchronous=NORMAL); \(postgresVersion) "
        out += "(a throwaway cluster on 127.0.0.1, fsync=on, synchronous_commit=on)\n"
        out += "- Set-up: wrk, every server and PostgreSQL share this machine; \(options.serverThreads) HTTP threads "
        out += "per node; wrk `-d\(options.duration)s --timeout 10s`, \(options.connections) connections "
        out += "(\(options.commitConnections) for commits of \(Benchmark.commitWrites)); three nodes: one wrk with "
        out += "3 threads, one per node, \(postgresThreeNodesCreate?.load.connections ?? 0) connections in all\n\n"

        out += "| figure | SQLite, 1 node | raw SQLite | PostgreSQL, 1 node | PostgreSQL, 3 nodes | raw PostgreSQL "
        out += "| PostgreSQL 1 node / raw |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        let pgCreates = postgres?.create.requestsPerSecond
        out += row(
            "creates/s — `POST …/documents/bench`",
            [
                rate(sqlite?.create.requestsPerSecond), rate(sqliteSingle?.documentsPerSecond) + " (1/transaction)",
                rate(pgCreates), rate(postgresThreeNodesCreate?.requestsPerSecond),
                rate(postgresSingle?.documentsPerSecond) + " (1/transaction, 1 client); "
                    + rate(postgresConcurrent?.documentsPerSecond) + " (\(options.connections) clients)",
                ratio(pgCreates, postgresSingle?.documentsPerSecond),
            ])
        let pgGets = postgres?.get.requestsPerSecond
        out += row(
            "point GETs/s — random of \(options.seedDocuments) documents",
            [
                rate(sqlite?.get.requestsPerSecond), "—", rate(pgGets), "—",
                rate(postgresReads?.documentsPerSecond) + " (primary-key SELECTs, \(options.connections) clients)",
                ratio(pgGets, postgresReads?.documentsPerSecond),
            ])
        let pgBulk = postgres.map { $0.commit.requestsPerSecond * Double(Benchmark.commitWrites) }
        out += row(
            "documents/s in commits of \(Benchmark.commitWrites) — `:commit`",
            [
                rate(sqlite.map { $0.commit.requestsPerSecond * Double(Benchmark.commitWrites) }),
                rate(sqliteBulk?.documentsPerSecond) + " (\(Benchmark.commitWrites)/transaction)", rate(pgBulk), "—",
                rate(postgresBulk?.documentsPerSecond) + " (\(Benchmark.commitWrites)/transaction, 1 client)",
                ratio(pgBulk, postgresBulk?.documentsPerSecond),
            ])
        if let sqliteSize = sqliteQueries?.sizes.last, let pgSize = postgresQueries?.sizes.last {
            out += row(
                "query p50 / p99 on \(rate(Double(pgSize.documents))) documents — equality + orderBy + limit 20, "
                    + "composite index, one client",
                [
                    ms(sqliteSize.latency.latencyP50) + " / " + ms(sqliteSize.latency.latencyP99), "—",
                    ms(pgSize.latency.latencyP50) + " / " + ms(pgSize.latency.latencyP99), "—", "—", "—",
                ])
            out += row(
                "documents/s loading that collection — `:commit` of 500; SQLite 2 clients, PostgreSQL "
                    + "\(StoreBenchmark.postgresSeedClients)",
                [
                    rate(sqliteQueries?.seedDocumentsPerSecond), "—", rate(postgresQueries?.seedDocumentsPerSecond),
                    "—", "—", "—",
                ])
            out += row(
                "count over \(rate(Double(pgSize.documents))) documents, median of 5",
                [
                    ms(median(sqliteQueries?.countMilliseconds)), "—", ms(median(postgresQueries?.countMilliseconds)),
                    "—", "—", "—",
                ])
            out += row(
                "read-write transactions on 100 hot documents, 32 clients: commits/s (ABORTED share)",
                [
                    transactions(sqliteQueries), "—", transactions(postgresQueries), "—", "—", "—",
                ])
        }

        out += "\n| load (wrk) | requests/s | requests | p50 | p90 | p99 | max |\n"
        out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        let loads =
            [sqlite, postgres].compactMap { $0 }.flatMap { [$0.create, $0.get, $0.commit] }
            + [postgresThreeNodesCreate].compactMap { $0 }
            + [sqliteQueries, postgresQueries].compactMap { $0?.sizes.last?.latency }
        for result in loads {
            out += "| \(result.load.name) (-t\(result.load.threads) -c\(result.load.connections)) "
            out += "| \(rate(result.requestsPerSecond)) | \(rate(Double(result.requests))) | \(ms(result.latencyP50)) "
            out += "| \(ms(result.latencyP90)) | \(ms(result.latencyP99)) | \(ms(result.latencyMax)) |\n"
        }

        out += "\n| raw baseline | documents/s | documents | seconds |\n| --- | ---: | ---: | ---: |\n"
        for result in [sqliteSingle, sqliteBulk].compactMap({ $0 }) {
            out += "| SQLite, \(result.perTransaction) per transaction | \(rate(result.documentsPerSecond)) "
            out += "| \(rate(Double(result.documents))) | \(String(format: "%.1f", result.seconds)) |\n"
        }
        for result in [postgresSingle, postgresConcurrent, postgresBulk].compactMap({ $0 }) {
            out += "| PostgreSQL inserts, \(result.perTransaction) per transaction, \(result.clients) client(s) "
            out += "| \(rate(result.documentsPerSecond)) | \(rate(Double(result.documents))) "
            out += "| \(String(format: "%.1f", result.seconds)) |\n"
        }
        if let reads = postgresReads {
            out += "| PostgreSQL point reads, \(reads.clients) clients | \(rate(reads.documentsPerSecond)) "
            out += "| \(rate(Double(reads.documents))) | \(String(format: "%.1f", reads.seconds)) |\n"
        }
        #if os(Linux)
        out += listenerMarkdown()
        #endif
        return out
    }

    #if os(Linux)
    private func listenerMarkdown() -> String {
        guard !listeners.isEmpty else { return "" }
        var out = "\n## Listener delivery over nodes\n\n"
        out += "Each listen stream on a document of its own, streams spread evenly over the nodes; "
        out += "\(options.storeWriteRate) writes/s to random listeners' documents for \(options.duration) s, "
        out += "spread over the same nodes (a write reaches listeners on the other nodes through PostgreSQL's change "
        out += "log). Latency from each document's commit (`updateTime`) to its event parsed at the client; the "
        out += "client (2 epoll threads) runs on the same machine.\n\n"
        out += "| engine | nodes | listeners | writes/s | delivered | commit → event p50 | p99 | max "
        out += "| write sent → event p50 | p99 | streams closed | RSS per node |\n"
        out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
        for run in listeners {
            out += "| \(run.engine) | \(run.nodes) | \(rate(Double(run.listeners))) | \(rate(run.writes.rate)) "
            out += "| \(rate(Double(run.delivered))) of \(rate(Double(run.writes.sent))) "
            out += "| \(ms(run.commitToReceive.p50)) | \(ms(run.commitToReceive.p99)) | \(ms(run.commitToReceive.max)) "
            out += "| \(ms(run.sendToReceive.p50)) | \(ms(run.sendToReceive.p99)) | \(run.closed) "
            out +=
                "| \(run.memory.map { String(format: "%.0f MiB", Double($0) / 1_048_576) }.joined(separator: ", ")) |\n"
        }
        let one = listeners.first { $0.engine == "PostgreSQL" && $0.nodes == 1 }
        let three = listeners.first { $0.engine == "PostgreSQL" && $0.nodes == 3 }
        if let one, let three, one.commitToReceive.count > 0, three.commitToReceive.count > 0 {
            let scale = Double(three.listeners) / Double(one.listeners)
            let wanted = Double(options.storeWriteRate) * 0.95
            let atRate = one.writes.rate >= wanted && three.writes.rate >= wanted
            let met =
                atRate && three.commitToReceive.p99 <= one.commitToReceive.p99 && three.delivered >= three.writes.sent
            out += "\nGoal (issue 22): three nodes serve at least \(StoreListenBenchmark.scaleGoal)× the listeners of "
            out += "one at the same p99, at \(options.storeWriteRate) writes/s. Three nodes held "
            out += "\(rate(Double(three.listeners))) listeners (\(String(format: "%.1f", scale))× one node's "
            out += "\(rate(Double(one.listeners)))) at p99 \(ms(three.commitToReceive.p99)) against one node's "
            out +=
                "\(ms(one.commitToReceive.p99)), at \(rate(three.writes.rate)) and \(rate(one.writes.rate)) writes/s: "
            if met {
                out += "**met**.\n"
            } else if !atRate {
                out += "**not met**: the nodes did not commit \(options.storeWriteRate) writes/s, so the write path, "
                out += "not the listeners, set the latency.\n"
            } else {
                out += "**not met**.\n"
            }
        }
        return out
    }
    #endif

    // ── formatting ──

    private func row(_ figure: String, _ cells: [String]) -> String {
        "| \(figure) | " + cells.joined(separator: " | ") + " |\n"
    }

    private func median(_ values: [Double]?) -> Double? {
        guard let sorted = values?.sorted(), !sorted.isEmpty else { return nil }
        return sorted[sorted.count / 2]
    }

    private func transactions(_ results: QueryBenchmark.Results?) -> String {
        guard let results else { return "—" }
        return rate(results.transactionCommitsPerSecond) + " (\(Int((results.transactionAbortRate * 100).rounded()))%)"
    }

    private func ratio(_ value: Double?, _ baseline: Double?) -> String {
        guard let value, let baseline, baseline > 0 else { return "—" }
        return "\(Int((value / baseline * 100).rounded()))%"
    }

    private func rate(_ value: Double?) -> String { ReportFormat.rate(value) }

    private func ms(_ value: Double?) -> String { ReportFormat.ms(value) }
}
