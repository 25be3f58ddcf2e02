import Foundation

extension TreeBenchmark.Results {
    /// The tree issue's targets.
    enum Target {
        static let leafWritesPerSecond = 10_000.0
        static let serverGetMedianMilliseconds = 1.0
        static let streamP99Milliseconds = 50.0
    }

    /// Whether each target was met (`nil` when not measured).
    var verdicts: [Bool?] {
        [
            writes.map { $0.requestsPerSecond >= Target.leafWritesPerSecond },
            serverGetMedianBoundMilliseconds.map { $0 <= Target.serverGetMedianMilliseconds },
            stream.map {
                ($0.percentile(0.99) ?? .infinity) < Target.streamP99Milliseconds && $0.delivered == $0.writes
            },
        ]
    }

    /// Targets missed.
    var missedTargets: Int { verdicts.filter { $0 == false }.count }

    /// The report section.
    func markdown() -> String {
        let ms = ReportFormat.ms
        let rate = ReportFormat.rate
        func result(_ verdict: Bool?) -> String { verdict.map { $0 ? "pass" : "FAIL" } ?? "—" }
        let share = { (value: Double?) in value.map { String(format: "%.0f%%", $0 * 100) } ?? "—" }
        var out = "\n## Tree database\n\n"
        out += "A tree of \(rate(Double(leaves))) leaves (`/rooms/t{i}/m{0…9}/f{0…9}`, 100 per room), seeded at "
        out += "\(rate(seedLeavesPerSecond)) leaves/s through PATCHes of 10,000 leaves.\n\n"
        out += "| figure | Hearth | target | result |\n| --- | ---: | --- | --- |\n"
        if let writes {
            out += "| leaf writes/s at depth 4 — `PUT /rooms/t{i}/m{j}/f{k}.json`, wrk -c\(writes.load.connections) "
            out += "| \(rate(writes.requestsPerSecond)) (p50 \(ms(writes.latencyP50)), p99 \(ms(writes.latencyP99))) "
            out += "| ≥ \(rate(Target.leafWritesPerSecond)) | \(result(verdicts[0])) |\n"
        }
        if let gets {
            out +=
                "| GET of a 100-leaf room, server p50 (from `/metrics`; \(share(serverGetShareUnderHalfMillisecond)) "
            out +=
                "≤ 0.5 ms, \(share(serverGetShareUnderMillisecond)) ≤ 1 ms) | ≤ \(ms(serverGetMedianBoundMilliseconds)) "
            out +=
                "(client p50 \(ms(gets.latencyP50)), p99 \(ms(gets.latencyP99)); \(rate(gets.requestsPerSecond))/s, -c1) "
            out += "| p50 < 1 ms | \(result(verdicts[1])) |\n"
        }
        if let stream {
            out += "| delivery to \(rate(Double(stream.listeners))) streams at \(rate(stream.achievedWritesPerSecond)) "
            out += "writes/s: \(rate(Double(stream.delivered))) of \(rate(Double(stream.writes))) events, p50 "
            out += "\(ms(stream.percentile(0.5))), p90 \(ms(stream.percentile(0.9))), max \(ms(stream.percentile(1))) "
            out += "| p99 \(ms(stream.percentile(0.99))) | p99 < 50 ms, every event | \(result(verdicts[2])) |\n"
        }
        out += "\nTree server: peak RSS (VmHWM) "
        out += peakRSS.map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "n/a"
        out += ".\n"
        return out
    }
}
