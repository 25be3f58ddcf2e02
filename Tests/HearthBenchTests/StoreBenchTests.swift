import Foundation
import HearthPostgres
import HearthPostgresTestSupport
import Testing

@testable import hearth_bench

/// The parts of `hearth-bench --store postgres` that decide what a reader of its report sees: the option, the
/// cluster it starts and its raw baseline, the goal's verdict.
@Suite("hearth-bench --store postgres")
struct StoreBenchTests {
    @Test("--store postgres selects the comparison; an unknown engine is a usage error")
    func storeOption() throws {
        #expect(try BenchOptions.parse(["--store", "postgres"])?.comparePostgres == true)
        #expect(try BenchOptions.parse([])?.comparePostgres == false)
        #expect(throws: BenchOptions.UsageError.self) { try BenchOptions.parse(["--store", "mysql"]) }
    }

    @Test("the spread script points wrk's threads at each node's port in turn")
    func spreadScript() {
        let script = LuaScripts.spread(over: ["8081", "8082", "8083"])
        #expect(script.contains(#"local ports = { "8081", "8082", "8083" }"#))
        #expect(script.contains("thread.addr = wrk.lookup(\"127.0.0.1\", ports[(spread - 1) % #ports + 1])[1]"))
    }

    #if os(Linux)
    private static func run(nodes: Int, listeners: Int, rate: Double, p99: Double) -> StoreListenBenchmark.Run {
        StoreListenBenchmark.Run(
            engine: "PostgreSQL", nodes: nodes, listeners: listeners,
            writes: ListenPacer.Result(sent: Int(rate * 10), failed: 0, seconds: 10), delivered: Int(rate * 10),
            commitToReceive: LatencySummary([1, p99]), sendToReceive: LatencySummary([1, p99]), closed: 0,
            memory: [0])
    }

    private static func report(_ runs: [StoreListenBenchmark.Run]) -> String {
        var report = StoreBenchReport(
            machine: .current(), options: BenchOptions(), wrkVersion: "wrk", sqliteVersion: "3", postgresVersion: "15")
        report.listeners = runs
        return report.markdown()
    }

    @Test("the goal is met only when three nodes hold 2.5× the listeners at no worse a p99, at the asked rate")
    func goalVerdict() {
        let met = Self.report([
            Self.run(nodes: 1, listeners: 4000, rate: 1000, p99: 20),
            Self.run(nodes: 3, listeners: 10000, rate: 1000, p99: 19),
        ])
        #expect(met.contains("**met**"), "\(met)")
        let slower = Self.report([
            Self.run(nodes: 1, listeners: 4000, rate: 1000, p99: 20),
            Self.run(nodes: 3, listeners: 10000, rate: 1000, p99: 40),
        ])
        #expect(slower.contains("**not met**."), "\(slower)")
        // A lower p99 at a fraction of the rate proves nothing: the verdict says the write path set it.
        let behind = Self.report([
            Self.run(nodes: 1, listeners: 4000, rate: 130, p99: 20),
            Self.run(nodes: 3, listeners: 10000, rate: 250, p99: 10),
        ])
        #expect(behind.contains("**not met**: the nodes did not commit 1000 writes/s"), "\(behind)")
    }

    @Test(
        "the bench's own cluster starts, takes the raw baseline's inserts and reads, and is gone after stop()",
        TestCluster.requirement)
    func clusterAndBaseline() throws {
        let cluster = try BenchPostgresCluster()
        defer { cluster.stop() }
        #expect(cluster.version.hasPrefix("PostgreSQL"), "\(cluster.version)")
        let connection = try PostgresConnection(conninfo: cluster.conninfo())
        let setting = try connection.query("SHOW synchronous_commit").rows.first?.string(0)
        connection.close()
        #expect(setting == "on", "the baseline must pay a WAL flush per commit, as the engine does")
        let baseline = PostgresBaseline(cluster: cluster)
        let inserts = try baseline.measureInserts(perTransaction: 3, clients: 2, duration: .milliseconds(300))
        #expect(inserts.documents > 0 && inserts.documents % 3 == 0, "\(inserts)")
        let reads = try baseline.measureReads(count: 600, clients: 2, duration: .milliseconds(300))
        #expect(reads.documents > 0, "\(reads)")
        let port = cluster.port
        cluster.stop()
        #expect(throws: (any Error).self) {
            try PostgresConnection(conninfo: "host=127.0.0.1 port=\(port) user=postgres connect_timeout=5")
        }
    }
    #endif
}
