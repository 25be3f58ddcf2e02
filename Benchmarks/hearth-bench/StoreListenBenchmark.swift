#if os(Linux)
import Foundation
import Synchronization

/// The listener figure of `hearth-bench --store postgres`: listen streams, each on a document of its own, spread
/// evenly over one or three nodes, and writes to random listeners' documents at a steady rate spread over the same
/// nodes (a write on any node must reach a listener on any node, through PostgreSQL's change log), with the delivery
/// latency from each document's commit to its event at the client. A node that cannot commit the rate is given twice
/// the load's duration, then the writers stop; the report shows the rate reached.
///
/// Runs, in this order: one SQLite node and one PostgreSQL node with `storeListeners` listeners, then one and three
/// PostgreSQL nodes with 2.5 times as many — the issue's goal is that three nodes serve 2.5× the listeners of one at
/// the same p99.
struct StoreListenBenchmark {
    let options: BenchOptions
    let workDirectory: URL

    /// What one run measured.
    struct Run: Sendable {
        var engine: String
        var nodes: Int
        var listeners: Int
        var writes: ListenPacer.Result
        var delivered: Int
        /// Commit (the document's `updateTime`) → event parsed by the client, milliseconds.
        var commitToReceive: LatencySummary
        /// Write sent → event parsed, milliseconds (includes the write's own round trip).
        var sendToReceive: LatencySummary
        /// Streams the servers closed during the run.
        var closed: Int
        /// Resident memory of each node after the writes, bytes.
        var memory: [Int]
    }

    /// How many more listeners the three-node runs hold: the issue's goal.
    static let scaleGoal = 2.5

    func run(cluster: BenchPostgresCluster) throws -> [Run] {
        let files = ListenBenchSocket.raiseFileLimit()
        let larger = Int((Double(options.storeListeners) * Self.scaleGoal).rounded())
        guard files >= larger + 200 else {
            throw BenchError("\(larger + 200) open files needed for the listener figure, the limit is \(files)")
        }
        var runs: [Run] = []
        runs.append(try measure(engine: "SQLite", nodes: 1, listeners: options.storeListeners, store: nil))
        for (nodes, listeners) in [(1, options.storeListeners), (1, larger), (3, larger)] {
            let database = "listen_\(nodes)_\(listeners)"
            try cluster.createDatabase(database)
            runs.append(
                try measure(
                    engine: "PostgreSQL", nodes: nodes, listeners: listeners, store: cluster.url(database: database)))
        }
        return runs
    }

    private func measure(engine: String, nodes count: Int, listeners: Int, store: String?) throws -> Run {
        let arguments = store.map(StoreBenchmark.postgresArguments) ?? []
        let servers = try (0..<count).map { _ in
            try ListenServerProcess(
                binary: options.hearthPath, directory: workDirectory, threads: options.serverThreads,
                extraArguments: arguments)
        }
        defer { for server in servers { server.stop() } }
        let fleet = ListenFleet(threads: 2)
        defer { fleet.stop() }
        let path = ListenScenarios.documentsPath
        log("\(engine), \(count) node(s): opening \(listeners) listen streams")
        for (node, server) in servers.enumerated() {
            // Listener i is on node i % count, on document d{i}.
            let mine = Array(stride(from: node, to: listeners, by: count))
            let sessions = try fleet.open(port: server.port, path: path + ":listen", count: mine.count, parallelism: 8)
            try ListenScenarios.addTargets(port: server.port, sessions: sessions) { index in
                #"{"addTarget":{"targetId":1,"documents":{"documents":["projects/demo/databases/(default)/documents/own/d\#(mine[index])"]}}}"#
            }
        }
        try ListenScenarios.wait("\(listeners) targets current") { fleet.snapshot.currents >= listeners }

        log("\(engine), \(count) node(s): \(options.storeWriteRate) writes/s for \(options.duration) s")
        fleet.startRecording()
        let total = Mutex(ListenPacer.Result())
        let failure = Mutex<(any Error)?>(nil)
        let ports = servers.map(\.port)
        DispatchQueue.concurrentPerform(iterations: count) { node in
            do {
                let result = try ListenPacer.run(
                    port: ports[node], rate: options.storeWriteRate / count, duration: Double(options.duration),
                    threads: max(2, 4 / count), giveUpAfter: 2 * Double(options.duration)
                ) { sequence, sent in
                    let document = ((sequence &* count &+ node) &* 7919) % listeners
                    return (
                        "PATCH", path + "/own/d\(document)",
                        Array(#"{"fields":{"t":{"integerValue":"\#(sent)"}}}"#.utf8)
                    )
                }
                total.withLock { total in
                    total.sent += result.sent
                    total.failed += result.failed
                    total.seconds = max(total.seconds, result.seconds)
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let writes = total.withLock { $0 }
        try ListenScenarios.wait("every write delivered", timeout: 10, allowTimeout: true) {
            fleet.snapshot.recordedDocuments >= writes.sent
        }
        let samples = fleet.stopRecording().filter { $0.kind == .document && $0.sent > 0 }
        return Run(
            engine: engine, nodes: count, listeners: listeners, writes: writes, delivered: samples.count,
            commitToReceive: LatencySummary(samples.map { Double($0.receivedWall - $0.committed) / 1000 }),
            sendToReceive: LatencySummary(samples.map { Double($0.receivedMonotonic - $0.sent) / 1e6 }),
            closed: fleet.snapshot.closed, memory: servers.map { $0.memory().resident })
    }
}
#endif
