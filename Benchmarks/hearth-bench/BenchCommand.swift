import Foundation

/// The command line: parses options, runs the benchmark, prints and writes the report.
enum BenchCommand {
    static let usage = """
        USAGE: hearth-bench [options]

        Starts the release `hearth` server on 127.0.0.1 with a fresh data directory, loads it with wrk, and compares
        each figure with baselines measured in the same run: a bare libmicrohttpd handler (HearthHTTP, same thread
        count, same wrk parameters) and raw SQLite inserts (HearthSQLite, WAL, synchronous=NORMAL). Every load is
        bounded in time. The Markdown report goes to standard output and to --out.

        OPTIONS:
          --hearth PATH             the hearth binary                      (default .build/release/hearth)
          --wrk PATH                the wrk binary                         (default: wrk on PATH)
          --duration SECONDS        length of each load, 1…120             (default 10)
          --connections N           wrk connections for creates and GETs   (default 32)
          --commit-connections N    wrk connections for 500-write commits  (default 4)
          --wrk-threads N           wrk threads                            (default 2)
          --server-threads N        HTTP threads of hearth and of the bare handler (default: CPU count, at least 2)
          --seed-documents N        documents created before the GET load  (default 10000)
          --out PATH                also write the report here             (default Benchmarks/out/latest.md)
          --query-sizes A,B,C       collection sizes for the query figures (default 10000,100000,1000000)
          --skip-queries            skip the query, count and transaction figures
          --tree-leaves N           leaves in the tree for the tree figures (default 1000000)
          --tree-listeners N        streams for the tree delivery figure    (default 1000)
          --tree-writes N           writes/s during the tree delivery figure (default 1000)
          --skip-tree               skip the tree figures
          --skip-rules              skip the security-rules figure (creates with and without an ownership rule)
          --rules-only              measure the security-rules figure only
          --store postgres          instead: the PostgreSQL engine beside SQLite in one run, on a throwaway
                                    PostgreSQL cluster it starts (initdb + postgres, as hearth-pg when root):
                                    creates on one and three nodes, GETs, commits of 500, the query on the largest
                                    --query-sizes collection, listener delivery on one and three nodes, each beside
                                    raw SQLite / raw PostgreSQL (libpq, synchronous_commit=on) (default sqlite)
          --store-listeners N       listeners on one node with --store postgres; the three-node figure holds 2.5
                                    times as many (0 skips the listener figure)  (default 4000)
          --store-rate N            writes/s during the --store postgres listener figure (default 1000)
          --baselines-only          measure the baselines only, without hearth
          --check-targets           exit with status 3 when a target is missed
          -h, --help                show this help

        EXIT STATUS: 0 measured, 1 a load failed (non-2xx responses, socket errors, server did not start or stop
        cleanly), 3 a target was missed (only with --check-targets), 64 usage error.
        """

    /// Runs the command and returns the process exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if ListenBenchCommand.handles(arguments) { return ListenBenchCommand.run(arguments) }
        if FilesBenchCommand.handles(arguments) { return FilesBenchCommand.run(arguments) }
        if TransferBenchCommand.handles(arguments) { return TransferBenchCommand.run(arguments) }
        let options: BenchOptions
        do {
            guard let parsed = try BenchOptions.parse(arguments) else {
                print(usage)
                return 0
            }
            options = parsed
        } catch {
            FileHandle.standardError.write(
                Data("hearth-bench: \(error)\nRun 'hearth-bench --help' for the options.\n".utf8))
            return 64
        }

        if options.comparePostgres { return runStoreComparison(options) }
        let report: BenchReport
        do {
            report = try Benchmark(options: options).run()
        } catch {
            FileHandle.standardError.write(Data("hearth-bench: FAILED: \(error)\n".utf8))
            return 1
        }

        let markdown = report.markdown()
        guard ReportFormat.publish(markdown, to: options.outputPath, command: "hearth-bench") else { return 1 }
        if options.checkTargets && report.missedTargets > 0 {
            log("\(report.missedTargets) target(s) missed")
            return 3
        }
        return 0
    }
}

extension BenchCommand {
    /// `--store postgres`: both engines in one run (StoreBenchmark), its own report.
    static func runStoreComparison(_ options: BenchOptions) -> Int32 {
        let report: StoreBenchReport
        do {
            report = try StoreBenchmark(options: options).run()
        } catch {
            FileHandle.standardError.write(Data("hearth-bench: FAILED: \(error)\n".utf8))
            return 1
        }
        guard ReportFormat.publish(report.markdown(), to: options.outputPath, command: "hearth-bench") else { return 1 }
        return 0
    }
}

/// Progress goes to standard error so standard output carries only the report.
func log(_ message: String) {
    FileHandle.standardError.write(Data("hearth-bench: \(message)\n".utf8))
}
