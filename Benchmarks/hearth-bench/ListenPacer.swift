#if os(Linux)
import Dispatch
import Foundation
import Synchronization

/// Sends requests at a steady rate from several threads, each on its own keep-alive connection, for a fixed time.
/// A thread that falls behind sends at once (no sleeping) until it has caught up, so the achieved rate shows
/// whether the server kept up.
enum ListenPacer {
    struct Result: Sendable {
        var sent = 0
        var failed = 0
        var seconds = 0.0
        /// Request → response times, milliseconds.
        var acknowledgements: [Double] = []

        var rate: Double { seconds > 0 ? Double(sent) / seconds : 0 }
    }

    /// `request(sequence, sentNanoseconds)` gives each request's method, path and body. With `giveUpAfter`, a
    /// thread still behind that many seconds after the start stops there rather than sending all it owes, so a
    /// server far slower than `rate` bounds the run's length (the result's rate shows what it reached).
    static func run(
        port: Int, rate: Int, duration: Double, threads: Int, giveUpAfter: Double? = nil,
        request: @escaping @Sendable (Int, Int64) -> (method: String, path: String, body: [UInt8])
    ) throws -> Result {
        let total = Mutex(Result())
        let failure = Mutex<BenchError?>(nil)
        let group = DispatchGroup()
        let start = ListenBenchSocket.monotonicNanoseconds() + 20_000_000
        let end = start + Int64(duration * 1e9)
        let interval = Int64(1e9 * Double(threads) / Double(max(1, rate)))
        for worker in 0..<threads {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var result = Result()
                do {
                    let connection = try ListenBenchConnection(port: port)
                    var next = start + interval * Int64(worker) / Int64(threads)
                    var sequence = worker
                    let giveUp = giveUpAfter.map { start + Int64($0 * 1e9) } ?? .max
                    while next < end, ListenBenchSocket.monotonicNanoseconds() < giveUp {
                        ListenBenchSocket.sleep(until: next)
                        let sent = ListenBenchSocket.monotonicNanoseconds()
                        let (method, path, body) = request(sequence, sent)
                        let (status, _) = try connection.request(method, path, body: body)
                        result.acknowledgements.append(Double(ListenBenchSocket.monotonicNanoseconds() - sent) / 1e6)
                        if (200..<300).contains(status) { result.sent += 1 } else { result.failed += 1 }
                        sequence += threads
                        next += interval
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? BenchError("paced writer \(worker): \(error)") }
                }
                total.withLock { total in
                    total.sent += result.sent
                    total.failed += result.failed
                    total.acknowledgements += result.acknowledgements
                }
            }
            thread.start()
        }
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        var result = total.withLock { $0 }
        result.seconds = Double(max(end, ListenBenchSocket.monotonicNanoseconds()) - start) / 1e9
        return result
    }

    /// Runs `body(sequence)` at `rate` per second on one thread for `duration` seconds (the baseline's pusher).
    static func tick(rate: Int, duration: Double, _ body: (Int) -> Void) -> Int {
        let start = ListenBenchSocket.monotonicNanoseconds()
        let end = start + Int64(duration * 1e9)
        let interval = Int64(1e9 / Double(max(1, rate)))
        var next = start
        var sequence = 0
        while next < end {
            ListenBenchSocket.sleep(until: next)
            body(sequence)
            sequence += 1
            next += interval
        }
        return sequence
    }
}

/// Percentiles of a list of milliseconds.
struct LatencySummary: Sendable {
    var count = 0
    var p50 = 0.0
    var p99 = 0.0
    var max = 0.0

    init(_ values: [Double]) {
        guard !values.isEmpty else { return }
        let sorted = values.sorted()
        count = sorted.count
        func percentile(_ p: Double) -> Double {
            sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
        }
        p50 = percentile(0.50)
        p99 = percentile(0.99)
        max = sorted[sorted.count - 1]
    }

    init() {}
}
#endif
