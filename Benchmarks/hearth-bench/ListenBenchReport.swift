#if os(Linux)
import Foundation

/// The listener figures and their Markdown report.
struct ListenBenchReport {
    /// Deliveries of paced writes, each to its own listener.
    struct Delivery: Sendable {
        var writes: ListenPacer.Result
        var delivered: Int
        /// Commit (the document's `updateTime`) → event parsed by the client, milliseconds.
        var commitToReceive: LatencySummary
        /// Write request sent → event parsed by the client, milliseconds (includes the write's own HTTP round trip).
        var sendToReceive: LatencySummary
    }

    /// One write reaching every listener of one document.
    struct FanOut: Sendable {
        var delivered: Int
        var listeners: Int
        /// Commit → the last listener's event, milliseconds.
        var lastFromCommit: Double
        /// Write sent → the last listener's event, milliseconds.
        var lastFromSend: Double
        /// Commit → the median listener's event, milliseconds.
        var medianFromCommit: Double

        /// The figures of one round's events.
        init(samples: [ListenSample], listeners: Int) {
            delivered = samples.count
            self.listeners = listeners
            let fromCommit = samples.map { Double($0.receivedWall - $0.committed) / 1000 }.sorted()
            lastFromCommit = fromCommit.last ?? 0
            medianFromCommit = fromCommit.isEmpty ? 0 : fromCommit[fromCommit.count / 2]
            lastFromSend = samples.map { Double($0.receivedMonotonic - $0.sent) / 1e6 }.max() ?? 0
        }
    }

    /// Many listeners on one limit query under a write load.
    struct QueryDelivery: Sendable {
        var writes: ListenPacer.Result
        var listeners: Int
        /// Consistency markers that followed document events (one per window change per listener).
        var markers: Int
        var documents: Int
        /// Commit (the marker's `readTime`) → marker parsed, milliseconds.
        var commitToReceive: LatencySummary
        var memory: Int
    }

    /// The same number of listeners over gRPC `Listen` and over the SSE channel, on one server, writes shared.
    struct Channels: Sendable {
        var listeners: Int
        var writes: ListenPacer.Result
        var grpcDelivered: Int
        /// Commit (`update_time`) → `document_change` decoded, milliseconds.
        var grpc: LatencySummary
        var grpcClosed: Int
        var sseDelivered: Int
        /// Commit (`updateTime`) → SSE event parsed, milliseconds.
        var sse: LatencySummary
        var sseClosed: Int
    }

    let machine: MachineInfo
    let options: ListenBenchOptions
    let date = Date()
    var own: Delivery?
    var baselineOwn: Delivery?
    var fanOut: [FanOut] = []
    var baselineFanOut: [FanOut] = []
    var query: QueryDelivery?
    var baselineQuery: QueryDelivery?
    var channels: Channels?
    var matching: [ListenMatchingBenchmark.Row] = []
    var hubFanOut: [ListenFanOutBenchmark.Result] = []
    var idleMemory: Int?
    var busyMemory: Int?
    var peakMemory: Int?
    var closedDuringOwn = 0

    init(machine: MachineInfo, options: ListenBenchOptions) {
        self.machine = machine
        self.options = options
    }

    /// Targets from the issue, each with whether it was met (`nil`: not measured).
    var checks: [(name: String, passed: Bool?)] {
        let fanOutLast = fanOut.isEmpty ? nil : fanOut.map(\.lastFromCommit).sorted()[fanOut.count / 2]
        return [
            ("own documents: p50 < 5 ms", own.map { $0.commitToReceive.p50 < 5 }),
            ("own documents: p99 < 50 ms", own.map { $0.commitToReceive.p99 < 50 }),
            ("own documents: every write delivered", own.map { $0.delivered >= $0.writes.sent }),
            ("server RSS < 300 MB", peakMemory.map { $0 < 300 * 1024 * 1024 }),
            ("one document: last delivery < 200 ms", fanOutLast.map { $0 < 200 }),
            ("query: p99 < 100 ms", query.map { $0.commitToReceive.p99 < 100 }),
            ("query: write rate kept (≥ 95%)", query.map { $0.writes.rate >= 0.95 * Double(options.queryWriteRate) }),
        ]
    }

    var missedTargets: Int { checks.filter { $0.passed == false }.count }

    func markdown() -> String {
        var out = "# Hearth live listeners — benchmark\n\n"
        out +=
            "Measured \(ISO8601DateFormatter().string(from: date)) on \(machine.processors) CPU(s), \(machine.cpuModel), "
        out += "\(machine.operatingSystem); load average at start \(machine.loadAverage ?? "?"). "
        out +=
            "Server and load client share the machine. Hearth runs with \(options.serverThreads) HTTP threads; the client reads "
        out +=
            "with \(options.clientThreads) epoll threads and writes from paced keep-alive connections. Latency is commit "
        out +=
            "(the document's `updateTime`, or the marker's `readTime`) → event parsed by the client, on the same wall clock.\n\n"
        out +=
            "Command: `hearth-bench listen --listeners \(options.listeners) --rate \(options.writeRate) --query-listeners "
        out += "\(options.queryListeners) --query-rate \(options.queryWriteRate) --duration \(options.duration)`\n\n"
        out += "| figure | Hearth | baseline (bare SSE push) | target |\n| --- | --- | --- | --- |\n"
        if let own {
            let base = baselineOwn
            out +=
                "| \(options.listeners) listeners on own documents, \(options.writeRate) writes/s: p50 | \(ms(own.commitToReceive.p50)) | \(ms(base?.commitToReceive.p50)) | < 5 ms |\n"
            out += "| … p99 | \(ms(own.commitToReceive.p99)) | \(ms(base?.commitToReceive.p99)) | < 50 ms |\n"
            out += "| … max | \(ms(own.commitToReceive.max)) | \(ms(base?.commitToReceive.max)) | |\n"
            out +=
                "| … write sent → event p50 / p99 | \(ms(own.sendToReceive.p50)) / \(ms(own.sendToReceive.p99)) | \(ms(base?.sendToReceive.p50)) / \(ms(base?.sendToReceive.p99)) | |\n"
            out +=
                "| … writes acknowledged / events delivered | \(own.writes.sent) / \(own.delivered) (\(rate(own.writes.rate)) writes/s) | \(base.map { "\($0.writes.sent) / \($0.delivered)" } ?? "–") | every one |\n"
            out +=
                "| server RSS: idle with the streams / under load / peak | \(bytes(idleMemory)) / \(bytes(busyMemory)) / \(bytes(peakMemory)) | | < 300 MB |\n"
        }
        if !fanOut.isEmpty {
            let median = { (rounds: [FanOut], key: KeyPath<FanOut, Double>) -> Double? in
                rounds.isEmpty ? nil : rounds.map { $0[keyPath: key] }.sorted()[rounds.count / 2]
            }
            out +=
                "| 1 document, \(options.listeners) listeners: last delivery (median of \(fanOut.count) writes) | \(ms(median(fanOut, \.lastFromCommit))) | \(ms(median(baselineFanOut, \.lastFromCommit))) | < 200 ms |\n"
            out +=
                "| … worst round / median listener | \(ms(fanOut.map(\.lastFromCommit).max())) / \(ms(median(fanOut, \.medianFromCommit))) | \(ms(baselineFanOut.map(\.lastFromCommit).max())) / \(ms(median(baselineFanOut, \.medianFromCommit))) | |\n"
            out +=
                "| … events delivered per write | \(fanOut.map(\.delivered).min() ?? 0) of \(options.listeners) | \(baselineFanOut.map(\.delivered).min() ?? 0) | all |\n"
        }
        if let query {
            let base = baselineQuery
            let perListener = Double(query.markers) / Double(query.listeners) / max(query.writes.seconds, 1e-9)
            out +=
                "| \(query.listeners) listeners on one query (`where` + `orderBy` + `limit 50`), \(options.queryWriteRate) writes/s: writes achieved | \(rate(query.writes.rate))/s (\(query.writes.failed) failed) | | \(options.queryWriteRate)/s |\n"
            out +=
                "| … window changes delivered per listener | \(String(format: "%.1f", perListener))/s (\(query.documents) document events in all) | same rate pushed | |\n"
            out +=
                "| … commit → snapshot p50 / p99 | \(ms(query.commitToReceive.p50)) / \(ms(query.commitToReceive.p99)) | \(ms(base?.commitToReceive.p50)) / \(ms(base?.commitToReceive.p99)) | p99 < 100 ms |\n"
            out += "| … server RSS | \(bytes(query.memory)) | | |\n"
        }
        if let channels {
            out += "\n## gRPC `Listen` beside the SSE channel\n\n"
            out += "One server: \(channels.listeners) gRPC `Listen` streams (the mobile SDKs' channel; "
            out +=
                "\(GRPCListenFleet.streamsPerConnection) per h2c connection, a thread each) and \(channels.listeners) SSE "
            out += "streams, each on its own document; \(options.writeRate) writes/s in all, alternately to a gRPC "
            out += "listener's and an SSE listener's document (\(channels.writes.sent) acknowledged).\n\n"
            out += "| figure | gRPC `Listen` | SSE channel |\n| --- | --- | --- |\n"
            out += "| commit → event p50 | \(ms(channels.grpc.p50)) | \(ms(channels.sse.p50)) |\n"
            out += "| … p99 | \(ms(channels.grpc.p99)) | \(ms(channels.sse.p99)) |\n"
            out += "| … max | \(ms(channels.grpc.max)) | \(ms(channels.sse.max)) |\n"
            out += "| events delivered | \(channels.grpcDelivered) | \(channels.sseDelivered) |\n"
            out += "| streams closed by the server | \(channels.grpcClosed) | \(channels.sseClosed) |\n"
        }
        if !matching.isEmpty {
            out += "\n## Matching cost per write vs listening queries (in process, no deliveries)\n\n"
            out +=
                "Each write is checked against `Q` distinct queries on its collection that it does not match. Equality-filtered "
            out +=
                "queries are indexed by field value, so a write only meets the queries pinned to its old or new value; "
            out += "range-only queries pin nothing and are each checked.\n\n"
            out +=
                "| listening queries | equality-filtered (`owner == uN`) µs/write | range-filtered (`n > N`) µs/write |\n| ---: | ---: | ---: |\n"
            for row in matching {
                out +=
                    "| \(row.queries) | \(String(format: "%.2f", row.equalityMicroseconds)) | \(String(format: "%.2f", row.rangeMicroseconds)) |\n"
            }
        }
        if !hubFanOut.isEmpty {
            out += "\n## The hub's own cost of one write to many listeners (in process, no sockets)\n\n"
            out +=
                "From publishing the change to the last session's SSE frames being encoded (median of 9 writes): matching, "
            out +=
                "building each session's responses, encoding.\n\n| listeners | milliseconds | µs per listener |\n| ---: | ---: | ---: |\n"
            for result in hubFanOut {
                out +=
                    "| \(result.listeners) | \(String(format: "%.1f", result.milliseconds)) | \(String(format: "%.2f", result.milliseconds * 1000 / Double(result.listeners))) |\n"
            }
        }
        out += "\n## Targets\n\n"
        for check in checks {
            let mark = check.passed.map { $0 ? "met" : "**missed**" } ?? "not measured"
            out += "- \(check.name): \(mark)\n"
        }
        if closedDuringOwn > 0 { out += "\n\(closedDuringOwn) streams closed during the own-document load.\n" }
        return out
    }

    private func ms(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value < 10 ? String(format: "%.2f ms", value) : String(format: "%.1f ms", value)
    }

    private func rate(_ value: Double) -> String { String(format: "%.0f", value) }

    private func bytes(_ value: Int?) -> String {
        guard let value, value > 0 else { return "–" }
        return String(format: "%.0f MB", Double(value) / 1_048_576)
    }
}
#endif
