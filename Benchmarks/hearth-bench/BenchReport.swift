import Foundation

/// Every figure of one run, and its Markdown rendering.
struct BenchReport {
    var machine: MachineInfo
    var options: BenchOptions
    var wrkVersion: String
    var sqliteVersion: String
    /// `git describe`-style source revision, when run inside a checkout.
    var revision: String?
    var date = Date()

    var bareCreate: WrkResult?
    var bareGet: WrkResult?
    var sqliteSingle: SQLiteBaseline.Result?
    var sqliteGrouped: SQLiteBaseline.Result?
    var sqliteBulk: SQLiteBaseline.Result?
    var hearthCreate: WrkResult?
    var hearthGet: WrkResult?
    var hearthCommit: WrkResult?
    /// Point reads over gRPC `GetDocument`, beside `hearthGet`.
    var grpcGet: GRPCResult?
    /// Commits of one set over REST `:commit` and over gRPC `Commit`.
    var hearthCommitOne: WrkResult?
    var grpcCommitOne: GRPCResult?
    var hearthPeakRSS: Int?
    var hearthExitStatus: Int32?
    var queries: QueryBenchmark.Results?
    var tree: TreeBenchmark.Results?
    var rules: RulesBenchmark.Results?

    /// Targets from the foundation issue.
    enum Target {
        static let createsPerSecond = 10_000.0
        static let createsShareOfBare = 0.30
        static let getsPerSecond = 25_000.0
        static let getsShareOfBare = 0.60
        static let commitDocumentsPerSecond = 50_000.0
    }

    /// One row of the main table.
    private struct Row {
        var figure: String
        var hearth: String
        var baseline: String
        var ratio: String
        var target: String
        var result: String
    }

    /// Rows whose result is a miss.
    var missedTargets: Int {
        rows().filter { $0.result.hasPrefix("FAIL") }.count + (tree?.missedTargets ?? 0) + (rules?.missedTargets ?? 0)
    }

    private func rows() -> [Row] {
        var rows: [Row] = []
        let hearthCreates = hearthCreate?.requestsPerSecond
        let hearthGets = hearthGet?.requestsPerSecond
        let hearthCommitDocs = hearthCommit.map { $0.requestsPerSecond * Double(Benchmark.commitWrites) }

        rows.append(
            Row(
                figure: "creates/s — `POST …/documents/bench`, \(connectionsText(options.connections))",
                hearth: rate(hearthCreates), baseline: rate(bareCreate?.requestsPerSecond) + " bare handler",
                ratio: ratio(hearthCreates, bareCreate?.requestsPerSecond),
                target: "≥ \(rate(Target.createsPerSecond)) and ≥ \(percent(Target.createsShareOfBare)) of bare",
                result: verdict([
                    ("rate", hearthCreates.map { $0 >= Target.createsPerSecond }),
                    (
                        "ratio",
                        share(hearthCreates, bareCreate?.requestsPerSecond).map { $0 >= Target.createsShareOfBare }
                    ),
                ])))
        rows.append(
            Row(
                figure: "creates/s vs raw SQLite, 1 document per transaction",
                hearth: rate(hearthCreates), baseline: rate(sqliteSingle?.documentsPerSecond),
                ratio: ratio(hearthCreates, sqliteSingle?.documentsPerSecond), target: "—", result: "info"))
        rows.append(
            Row(
                figure: "creates/s vs raw SQLite, 32 documents per transaction",
                hearth: rate(hearthCreates), baseline: rate(sqliteGrouped?.documentsPerSecond),
                ratio: ratio(hearthCreates, sqliteGrouped?.documentsPerSecond), target: "—", result: "info"))
        rows.append(
            Row(
                figure: "point GETs/s — random of \(options.seedDocuments) documents, "
                    + connectionsText(options.connections),
                hearth: rate(hearthGets), baseline: rate(bareGet?.requestsPerSecond) + " bare handler",
                ratio: ratio(hearthGets, bareGet?.requestsPerSecond),
                target: "≥ \(rate(Target.getsPerSecond)) and ≥ \(percent(Target.getsShareOfBare)) of bare",
                result: verdict([
                    ("rate", hearthGets.map { $0 >= Target.getsPerSecond }),
                    ("ratio", share(hearthGets, bareGet?.requestsPerSecond).map { $0 >= Target.getsShareOfBare }),
                ])))
        rows.append(
            Row(
                figure: "documents/s in commits of \(Benchmark.commitWrites) — `:commit`, "
                    + connectionsText(options.commitConnections),
                hearth: rate(hearthCommitDocs),
                baseline: rate(sqliteBulk?.documentsPerSecond) + " raw SQLite, \(Benchmark.commitWrites)/transaction",
                ratio: ratio(hearthCommitDocs, sqliteBulk?.documentsPerSecond),
                target: "≥ \(rate(Target.commitDocumentsPerSecond))",
                result: verdict([("rate", hearthCommitDocs.map { $0 >= Target.commitDocumentsPerSecond })])))
        let grpcGets = grpcGet?.callsPerSecond
        rows.append(
            Row(
                figure: "point reads/s over gRPC — `GetDocument`, \(grpcText(grpcGet)), beside REST GET",
                hearth: rate(grpcGets), baseline: rate(hearthGets) + " REST GET", ratio: ratio(grpcGets, hearthGets),
                target: "—", result: "info"))
        let grpcCommits = grpcCommitOne?.callsPerSecond
        let restCommits = hearthCommitOne?.requestsPerSecond
        rows.append(
            Row(
                figure: "commits/s of one set over gRPC — `Commit`, \(grpcText(grpcCommitOne)), beside REST `:commit`",
                hearth: rate(grpcCommits),
                baseline: rate(restCommits) + " REST `:commit`, \(connectionsText(options.connections))",
                ratio: ratio(grpcCommits, restCommits), target: "—", result: "info"))
        return rows
    }

    private func grpcText(_ result: GRPCResult?) -> String {
        guard let load = result?.load else { return "h2c" }
        return "\(load.connections) h2c connections × \(load.streams) streams"
    }

    /// The report: machine, main table, latencies, server footprint.
    func markdown() -> String {
        var out = "# Hearth benchmark\n\n"
        out += "- Run: \(ISO8601DateFormatter().string(from: date))"
        out += revision.map { ", source \($0)" } ?? ""
        out += "\n- Machine: \(machine.processors) CPU(s), \(machine.cpuModel), \(bytes(machine.memoryBytes)) RAM, "
        out += "\(machine.operatingSystem)\(machine.kernel.isEmpty ? "" : ", Linux \(machine.kernel)")"
        out += machine.loadAverage.map { "; load average at start \($0)" } ?? ""
        out += "\n- Tools: \(wrkVersion); SQLite \(sqliteVersion) (WAL, synchronous=NORMAL)\n"
        out +=
            "- Set-up: wrk and the servers share this machine, on 127.0.0.1; \(options.serverThreads) HTTP threads for "
        out += "hearth and for the bare handler; wrk `-t\(options.wrkThreads) -d\(options.duration)s --timeout 10s`\n\n"
        if options.rulesOnly, let rules {
            return out + "Only the security-rules figure (--rules-only).\n" + rules.markdown()
        }

        out += "| figure | Hearth | baseline | ratio | target | result |\n"
        out += "| --- | ---: | ---: | ---: | --- | --- |\n"
        for row in rows() {
            out +=
                "| \(row.figure) | \(row.hearth) | \(row.baseline) | \(row.ratio) | \(row.target) | \(row.result) |\n"
        }

        out += "\n| load (wrk, or the bench's h2c client for gRPC) | requests/s | requests | p50 | p90 | p99 | max |\n"
        out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        for result in [bareCreate, bareGet, hearthCreate, hearthGet, hearthCommit, hearthCommitOne].compactMap({ $0 }) {
            out += "| \(result.load.name) (-c\(result.load.connections)) | \(rate(result.requestsPerSecond)) "
            out += "| \(rate(Double(result.requests))) | \(ms(result.latencyP50)) | \(ms(result.latencyP90)) "
            out += "| \(ms(result.latencyP99)) | \(ms(result.latencyMax)) |\n"
        }

        for result in [grpcGet, grpcCommitOne].compactMap({ $0 }) {
            out += "| \(result.load.name) (\(result.load.connections)×\(result.load.streams) streams) "
            out += "| \(rate(result.callsPerSecond)) | \(rate(Double(result.calls))) | \(ms(result.latencyP50)) "
            out += "| \(ms(result.latencyP90)) | \(ms(result.latencyP99)) | \(ms(result.latencyMax)) |\n"
        }

        out += "\n| raw SQLite | documents/s | documents | seconds |\n| --- | ---: | ---: | ---: |\n"
        for result in [sqliteSingle, sqliteGrouped, sqliteBulk].compactMap({ $0 }) {
            out += "| \(result.perTransaction) per transaction | \(rate(result.documentsPerSecond)) "
            out += "| \(rate(Double(result.documents))) | \(String(format: "%.1f", result.seconds)) |\n"
        }

        if let queries {
            out += "\n## Queries, aggregations, transactions\n\n"
            out += "Equality + `orderBy` another field + `limit 20` through a declared composite index, one client "
            out += "(wrk `-t1 -c1`), latency measured at the client (so it includes HTTP); seeded at "
            out += "\(rate(queries.seedDocumentsPerSecond)) documents/s through `:commit`.\n\n"
            out +=
                "| documents in collection | queries/s | p50 | p99 | index entries read | documents read | target |\n"
            out += "| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
            for size in queries.sizes {
                let passed = (size.latency.latencyP50 ?? .infinity) < 2 && (size.latency.latencyP99 ?? .infinity) < 10
                out += "| \(rate(Double(size.documents))) | \(rate(size.latency.requestsPerSecond)) "
                out += "| \(ms(size.latency.latencyP50)) | \(ms(size.latency.latencyP99)) | \(size.indexEntriesRead) "
                out += "| \(size.documentsRead) | p50 < 2 ms, p99 < 10 ms: \(passed ? "pass" : "FAIL") |\n"
            }
            let sorted = queries.countMilliseconds.sorted()
            let median = sorted.isEmpty ? nil : sorted[sorted.count / 2]
            out += "\n- count over \(rate(Double(queries.countDocuments))) matching documents: median "
            out += "\(ms(median)) over \(sorted.count) runs, \(rate(Double(queries.countIndexEntries))) index entries "
            out += "counted, no document read; target < 200 ms: \((median ?? .infinity) < 200 ? "pass" : "FAIL")\n"
            out += "- read-write transactions (begin, read, commit an increment) on 100 hot documents from 32 clients: "
            out += "\(rate(queries.transactionCommitsPerSecond)) commits/s, "
            out += "\(percent(queries.transactionAbortRate)) of attempts ABORTED (and retried)\n"
        }

        if let tree { out += tree.markdown() }
        if let rules { out += rules.markdown() }

        out += "\n"
        if options.baselinesOnly {
            out += "Hearth not measured (--baselines-only).\n"
        } else {
            out += "Hearth server: peak RSS (VmHWM) \(bytes(hearthPeakRSS)); "
            out += "exit status after SIGTERM \(hearthExitStatus.map(String.init) ?? "n/a").\n"
        }
        return out
    }

    // ── formatting ──

    private func connectionsText(_ connections: Int) -> String {
        "\(connections) keep-alive connections"
    }

    private func share(_ value: Double?, _ baseline: Double?) -> Double? {
        guard let value, let baseline, baseline > 0 else { return nil }
        return value / baseline
    }

    private func ratio(_ value: Double?, _ baseline: Double?) -> String {
        share(value, baseline).map(percent) ?? "—"
    }

    private func percent(_ fraction: Double) -> String {
        "\(Int((fraction * 100).rounded()))%"
    }

    /// "pass" when every check passed, "FAIL (names)" otherwise, "—" when nothing was measured.
    private func verdict(_ checks: [(name: String, passed: Bool?)]) -> String {
        let measured = checks.compactMap { check in check.passed.map { (check.name, $0) } }
        guard measured.count == checks.count else { return "—" }
        let failed = measured.filter { !$0.1 }.map(\.0)
        return failed.isEmpty ? "pass" : "FAIL (\(failed.joined(separator: ", ")))"
    }

    private func rate(_ value: Double?) -> String { ReportFormat.rate(value) }

    private func ms(_ value: Double?) -> String { ReportFormat.ms(value) }

    private func bytes(_ value: Int?) -> String {
        guard let value else { return "n/a" }
        let mebibytes = Double(value) / 1_048_576
        return mebibytes >= 1024 ? String(format: "%.1f GiB", mebibytes / 1024) : String(format: "%.0f MiB", mebibytes)
    }
}
