import Foundation
import Synchronization

/// Request counters and latency histograms, rendered in the Prometheus text format at `/metrics`.
public final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct RouteKey: Hashable {
        var route: String
        var status: Int
    }

    private struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.latencyBuckets.count)
        var count = 0
        var sum = 0.0

        mutating func record(bucket: Int?, seconds: Double) {
            if let bucket { counts[bucket] += 1 }
            count += 1
            sum += seconds
        }
    }

    private struct State {
        var requests: [RouteKey: Int] = [:]
        var latencies: [String: Histogram] = [:]
    }

    private let state = Mutex(State())

    /// Creates empty metrics.
    public init() {}

    /// Records one finished request.
    public func record(route: String, status: Int, seconds: Double) {
        let bucket = Self.latencyBuckets.firstIndex { seconds <= $0 }
        state.withLock { state in
            state.requests[RouteKey(route: route, status: status), default: 0] += 1
            // Mutated in place: a copy taken out of the dictionary would copy its bucket array on every request.
            state.latencies[route, default: Histogram()].record(bucket: bucket, seconds: seconds)
        }
    }

    /// Gauges and counters owned elsewhere, sampled when `/metrics` is read.
    public struct Samples: Sendable {
        /// Open HTTP connections.
        public var openConnections: Int
        /// Commits acknowledged.
        public var commits: Int
        /// Writes acknowledged.
        public var writes: Int
        /// Commits that failed.
        public var failedCommits: Int
        /// Database bytes on disk.
        public var databaseBytes: Int
        /// Of those, bytes in the write-ahead log.
        public var walBytes: Int = 0
        /// Document listen targets open (one per query or document a client listens to).
        public var listenTargets: Int = 0
        /// Tree streams open (SSE and WebSocket listeners of the Realtime Database API).
        public var treeListeners: Int = 0
    }

    /// The Prometheus text exposition of every metric.
    public func render(_ samples: Samples) -> String {
        let snapshot = state.withLock { $0 }
        var text = ""
        text += "# HELP hearth_http_requests_total HTTP requests answered, by route and status.\n"
        text += "# TYPE hearth_http_requests_total counter\n"
        for key in snapshot.requests.keys.sorted(by: { ($0.route, $0.status) < ($1.route, $1.status) }) {
            text +=
                "hearth_http_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(snapshot.requests[key]!)\n"
        }
        text += "# HELP hearth_http_request_duration_seconds Time from request to response, by route.\n"
        text += "# TYPE hearth_http_request_duration_seconds histogram\n"
        for route in snapshot.latencies.keys.sorted() {
            let histogram = snapshot.latencies[route]!
            var cumulative = 0
            for (index, bound) in Self.latencyBuckets.enumerated() {
                cumulative += histogram.counts[index]
                text +=
                    "hearth_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            text += "hearth_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)\n"
            text += "hearth_http_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)\n"
            text += "hearth_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)\n"
        }
        func gauge(_ name: String, _ help: String, _ type: String, _ value: Int) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        gauge("hearth_http_open_connections", "HTTP connections open now.", "gauge", samples.openConnections)
        gauge("hearth_commits_total", "Commits acknowledged.", "counter", samples.commits)
        gauge(
            "hearth_writes_total", "Writes acknowledged: documents, and tree locations (one per PATCH path).",
            "counter",
            samples.writes)
        gauge("hearth_commits_failed_total", "Commits that failed.", "counter", samples.failedCommits)
        gauge(
            "hearth_database_bytes", "Bytes of the database on disk, with its write-ahead log.", "gauge",
            samples.databaseBytes)
        gauge(
            "hearth_wal_bytes", "Bytes of the write-ahead log, not yet checkpointed into the database.", "gauge",
            samples.walBytes)
        gauge("hearth_listen_targets", "Document listen targets open.", "gauge", samples.listenTargets)
        gauge("hearth_tree_listeners", "Tree streams open.", "gauge", samples.treeListeners)
        return text
    }
}
