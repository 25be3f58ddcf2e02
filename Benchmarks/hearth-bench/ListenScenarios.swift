#if os(Linux)
import Foundation
import Synchronization

/// The listener figures, each against Hearth and against the bare-push baseline.
struct ListenScenarios {
    let options: ListenBenchOptions
    let workDirectory: URL

    static let documentsPath = "/v1/projects/demo/databases/(default)/documents"

    // MARK: 10,000 listeners on their own documents, 1,000 writes/s — then one document with 10,000 listeners

    func ownDocuments(into report: inout ListenBenchReport) throws {
        let server = try ListenServerProcess(
            binary: options.hearthPath, directory: workDirectory, threads: options.serverThreads)
        defer { server.stop() }
        let fleet = ListenFleet(threads: options.clientThreads)
        defer { fleet.stop() }
        let count = options.listeners
        log("opening \(count) listen streams")
        let sessions = try fleet.open(
            port: server.port, path: Self.documentsPath + ":listen", count: count, parallelism: 8)
        try Self.addTargets(port: server.port, sessions: sessions) { index in
            #"{"addTarget":{"targetId":1,"documents":{"documents":["projects/demo/databases/(default)/documents/own/d\#(index)"]}}}"#
        }
        try Self.wait("\(count) targets current") { fleet.snapshot.currents >= count }
        report.idleMemory = server.memory().resident
        log("\(options.writeRate) writes/s to random documents for \(options.duration) s")
        fleet.startRecording()
        let writes = try ListenPacer.run(
            port: server.port, rate: options.writeRate, duration: Double(options.duration), threads: 4
        ) {
            sequence, sent in
            let document = (sequence &* 7919) % count
            return (
                "PATCH", Self.documentsPath + "/own/d\(document)",
                Array(#"{"fields":{"t":{"integerValue":"\#(sent)"}}}"#.utf8)
            )
        }
        try Self.wait("every write delivered", timeout: 10, allowTimeout: true) {
            fleet.snapshot.recordedDocuments >= writes.sent
        }
        let samples = fleet.stopRecording().filter { $0.kind == .document && $0.sent > 0 }
        report.own = ListenBenchReport.Delivery(
            writes: writes, delivered: samples.count,
            commitToReceive: LatencySummary(samples.map { Double($0.receivedWall - $0.committed) / 1000 }),
            sendToReceive: LatencySummary(samples.map { Double($0.receivedMonotonic - $0.sent) / 1e6 }))
        let memory = server.memory()
        report.busyMemory = memory.resident
        report.peakMemory = memory.peak
        report.closedDuringOwn = fleet.snapshot.closed

        log("one document, \(count) listeners")
        try Self.addTargets(port: server.port, sessions: sessions) { _ in
            #"{"addTarget":{"targetId":2,"documents":{"documents":["projects/demo/databases/(default)/documents/hot/one"]}}}"#
        }
        try Self.wait("\(count) hot targets current") { fleet.snapshot.currents >= 2 * count }
        let writer = try ListenBenchConnection(port: server.port)
        for _ in 0..<options.fanOutRounds {
            fleet.startRecording()
            let sent = ListenBenchSocket.monotonicNanoseconds()
            try writer.expect(
                "PATCH", Self.documentsPath + "/hot/one", body: #"{"fields":{"t":{"integerValue":"\#(sent)"}}}"#)
            try Self.wait("the hot write to reach every listener", timeout: 20, allowTimeout: true) {
                fleet.snapshot.recordedDocuments >= count
            }
            let round = fleet.stopRecording().filter { $0.kind == .document && $0.sent == sent }
            report.fanOut.append(ListenBenchReport.FanOut(samples: round, listeners: count))
            usleep(300_000)
        }
    }

    // MARK: 1,000 listeners on one query (where + orderBy + limit 50), 2,000 writes/s

    func sharedQuery(into report: inout ListenBenchReport) throws {
        let indexes = workDirectory.appendingPathComponent("listen.indexes.json")
        try Data(
            #"{"indexes":[{"collectionGroup":"board","queryScope":"COLLECTION","fields":[{"fieldPath":"status","order":"ASCENDING"},{"fieldPath":"score","order":"DESCENDING"}]}]}"#
                .utf8
        ).write(to: indexes)
        let server = try ListenServerProcess(
            binary: options.hearthPath, directory: workDirectory, threads: options.serverThreads,
            extraArguments: ["--indexes", indexes.path])
        defer { server.stop() }
        let seeder = try ListenBenchConnection(port: server.port)
        let documents = options.boardDocuments
        log("seeding \(documents) board documents")
        var random = SystemRandomNumberGenerator()
        for start in stride(from: 0, to: documents, by: 500) {
            let writes = (start..<min(start + 500, documents)).map { index in
                let status = index % 2 == 0 ? "open" : "closed"
                let score = Int.random(in: 0..<1_000_000, using: &random)
                return
                    #"{"update":{"name":"projects/demo/databases/(default)/documents/board/b\#(index)","fields":{"status":{"stringValue":"\#(status)"},"score":{"integerValue":"\#(score)"},"t":{"integerValue":"0"}}}}"#
            }
            try seeder.expect(
                "POST", Self.documentsPath + ":commit", body: #"{"writes":[\#(writes.joined(separator: ","))]}"#)
        }
        let fleet = ListenFleet(threads: options.clientThreads)
        defer { fleet.stop() }
        let count = options.queryListeners
        let sessions = try fleet.open(
            port: server.port, path: Self.documentsPath + ":listen", count: count, parallelism: 8)
        let query =
            #"{"from":[{"collectionId":"board"}],"where":{"fieldFilter":{"field":{"fieldPath":"status"},"op":"EQUAL","value":{"stringValue":"open"}}},"orderBy":[{"field":{"fieldPath":"score"},"direction":"DESCENDING"}],"limit":50}"#
        try Self.addTargets(port: server.port, sessions: sessions) { _ in
            #"{"addTarget":{"targetId":1,"query":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":\#(query)}}}"#
        }
        try Self.wait("\(count) query targets current") { fleet.snapshot.currents >= count }
        log("\(options.queryWriteRate) writes/s to the board for \(options.duration) s")
        fleet.startRecording()
        let writes = try ListenPacer.run(
            port: server.port, rate: options.queryWriteRate, duration: Double(options.duration), threads: 6
        ) {
            sequence, sent in
            var random = SystemRandomNumberGenerator()
            let document = Int.random(in: 0..<documents, using: &random)
            let status = Bool.random(using: &random) ? "open" : "closed"
            let score = Int.random(in: 0..<1_000_000, using: &random)
            return (
                "PATCH", Self.documentsPath + "/board/b\(document)",
                Array(
                    #"{"fields":{"status":{"stringValue":"\#(status)"},"score":{"integerValue":"\#(score)"},"t":{"integerValue":"\#(sent)"}}}"#
                        .utf8)
            )
        }
        usleep(1_000_000)
        let samples = fleet.stopRecording()
        let markers = samples.filter { $0.kind == .marker }
        report.query = ListenBenchReport.QueryDelivery(
            writes: writes, listeners: count, markers: markers.count,
            documents: samples.count { $0.kind == .document },
            commitToReceive: LatencySummary(markers.map { Double($0.receivedWall - $0.committed) / 1000 }),
            memory: server.memory().resident)
    }

    // MARK: gRPC Listen beside the SSE channel: as many listeners on each, writes shared, one server

    func grpcBesideSSE(into report: inout ListenBenchReport) throws {
        let server = try ListenServerProcess(
            binary: options.hearthPath, directory: workDirectory, threads: options.serverThreads)
        defer { server.stop() }
        let count = options.grpcListeners
        log("gRPC beside SSE: \(count) Listen streams and \(count) SSE streams, each on its own document")
        let sse = ListenFleet(threads: options.clientThreads)
        defer { sse.stop() }
        let sessions = try sse.open(
            port: server.port, path: Self.documentsPath + ":listen", count: count, parallelism: 8)
        try Self.addTargets(port: server.port, sessions: sessions) { index in
            #"{"addTarget":{"targetId":1,"documents":{"documents":["projects/demo/databases/(default)/documents/sse/d\#(index)"]}}}"#
        }
        let grpc = try GRPCListenFleet(port: server.port, collection: "grpc", count: count)
        defer { grpc.stop() }
        try Self.wait("\(count) SSE and \(count) gRPC targets current") {
            sse.snapshot.currents >= count && grpc.currents >= count
        }
        log("\(options.writeRate) writes/s, alternately to an SSE listener's and a gRPC listener's document")
        sse.startRecording()
        grpc.startRecording()
        let writes = try ListenPacer.run(
            port: server.port, rate: options.writeRate, duration: Double(options.duration), threads: 4
        ) {
            sequence, sent in
            let document = ((sequence / 2) &* 7919) % count
            let collection = sequence % 2 == 0 ? "sse" : "grpc"
            return (
                "PATCH", Self.documentsPath + "/\(collection)/d\(document)",
                Array(#"{"fields":{"t":{"integerValue":"\#(sent)"}}}"#.utf8)
            )
        }
        usleep(1_000_000)
        let sseSamples = sse.stopRecording().filter { $0.kind == .document && $0.sent > 0 }
        let grpcSamples = grpc.stopRecording()
        let trouble = grpc.trouble
        if let failure = trouble.failure { throw BenchError("gRPC listeners: \(failure)") }
        report.channels = ListenBenchReport.Channels(
            listeners: count, writes: writes, grpcDelivered: grpcSamples.count,
            grpc: LatencySummary(grpcSamples), grpcClosed: trouble.closed, sseDelivered: sseSamples.count,
            sse: LatencySummary(sseSamples.map { Double($0.receivedWall - $0.committed) / 1000 }),
            sseClosed: sse.snapshot.closed)
    }

    // MARK: Baseline: the same connections, bytes pushed by a bare HearthHTTP server

    func baseline(into report: inout ListenBenchReport) throws {
        let server = try ListenBaselineProcess(threads: options.serverThreads)
        defer { server.stop() }
        let fleet = ListenFleet(threads: options.clientThreads)
        defer { fleet.stop() }
        let count = options.listeners
        log("baseline: \(count) bare SSE streams")
        _ = try fleet.open(port: server.port, path: "/listen", count: count, parallelism: 8)
        fleet.startRecording()
        let pushed = try server.command("push \(options.writeRate) \(options.duration)")
        try Self.wait("every push delivered", timeout: 10, allowTimeout: true) {
            fleet.snapshot.recordedDocuments >= pushed
        }
        let samples = fleet.stopRecording().filter { $0.kind == .document }
        report.baselineOwn = ListenBenchReport.Delivery(
            writes: ListenPacer.Result(sent: pushed, failed: 0, seconds: Double(options.duration)),
            delivered: samples.count,
            commitToReceive: LatencySummary(samples.map { Double($0.receivedWall - $0.committed) / 1000 }),
            sendToReceive: LatencySummary(samples.map { Double($0.receivedMonotonic - $0.sent) / 1e6 }))
        for _ in 0..<options.fanOutRounds {
            fleet.startRecording()
            try server.command("broadcast")
            try Self.wait("the broadcast to reach every stream", timeout: 20, allowTimeout: true) {
                fleet.snapshot.recordedDocuments >= count
            }
            let round = fleet.stopRecording().filter { $0.kind == .document }
            report.baselineFanOut.append(ListenBenchReport.FanOut(samples: round, listeners: count))
            usleep(300_000)
        }
    }

    /// The query figure's baseline: the same number of streams, each sent batches at the rate Hearth's query
    /// listeners received them.
    func queryBaseline(into report: inout ListenBenchReport) throws {
        guard let query = report.query, query.markers > 0 else { return }
        let server = try ListenBaselineProcess(threads: options.serverThreads)
        defer { server.stop() }
        let fleet = ListenFleet(threads: options.clientThreads)
        defer { fleet.stop() }
        _ = try fleet.open(port: server.port, path: "/listen", count: options.queryListeners, parallelism: 8)
        let rate = max(
            1, Int((Double(query.markers) / Double(options.queryListeners) / query.writes.seconds).rounded()))
        fleet.startRecording()
        let pushed = try server.command("broadcast \(rate) \(options.duration)")
        usleep(1_000_000)
        let markers = fleet.stopRecording().filter { $0.kind == .marker }
        report.baselineQuery = ListenBenchReport.QueryDelivery(
            writes: ListenPacer.Result(sent: pushed, failed: 0, seconds: Double(options.duration)),
            listeners: options.queryListeners, markers: markers.count, documents: markers.count,
            commitToReceive: LatencySummary(markers.map { Double($0.receivedWall - $0.committed) / 1000 }), memory: 0)
    }

    // MARK: Helpers

    /// POSTs one addTarget per session, from several keep-alive connections at once.
    static func addTargets(port: Int, sessions: [String], body: @escaping @Sendable (Int) -> String) throws {
        let failure = Mutex<BenchError?>(nil)
        let group = DispatchGroup()
        let workers = 4
        for worker in 0..<workers {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let connection = try ListenBenchConnection(port: port)
                    for index in stride(from: worker, to: sessions.count, by: workers) {
                        try connection.expect(
                            "POST", Self.documentsPath + ":listen?session=\(sessions[index])", body: body(index))
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? BenchError("adding targets: \(error)") }
                }
            }
            thread.start()
        }
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    static func wait(_ what: String, timeout: Double = 120, allowTimeout: Bool = false, _ condition: () -> Bool) throws
    {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else {
                if allowTimeout {
                    log("gave up waiting for \(what) after \(Int(timeout)) s")
                    return
                }
                throw BenchError("timed out waiting for \(what)")
            }
            usleep(5_000)
        }
    }
}
#endif
