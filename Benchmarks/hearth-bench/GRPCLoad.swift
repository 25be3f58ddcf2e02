import Foundation
import HearthGRPC
import HearthHTTP2
import Synchronization

/// A closed-loop load of one unary gRPC method, shaped like the wrk loads it is compared with: as many calls in
/// flight as wrk has connections, but multiplexed as gRPC clients do, `streams` at a time on each of `connections`
/// HTTP/2 connections (h2c, on the REST port), each driven by a thread of its own. Bounded by `duration`.
struct GRPCLoad: Sendable {
    /// A label for the report.
    var name: String
    var port: Int
    /// The method, `/google.firestore.v1.Firestore/…`.
    var method: String
    var connections: Int
    var streams: Int
    /// Seconds of load.
    var duration: Int
    /// The protobuf request of call `sequence` on connection `connection`.
    var request: @Sendable (_ connection: Int, _ sequence: Int) -> [UInt8]
}

/// What one gRPC load measured.
struct GRPCResult: Sendable {
    var load: GRPCLoad
    /// Calls answered `grpc-status: 0` per second.
    var callsPerSecond: Double
    var calls: Int
    /// Latency of the answered calls, request submitted → stream closed, in milliseconds.
    var latencyP50: Double?
    var latencyP90: Double?
    var latencyP99: Double?
    var latencyMax: Double?
}

/// Runs `GRPCLoad`s.
enum GRPCLoadRunner {
    /// Runs `load`; throws when a connection fails, a call answers anything but `grpc-status: 0`, or nothing moves
    /// for 10 s.
    static func run(_ load: GRPCLoad) throws -> GRPCResult {
        log("gRPC \(load.name): \(load.connections) connections × \(load.streams) streams, \(load.duration)s")
        let latencies = Mutex<[Int64]>([])
        let failure = Mutex<String?>(nil)
        let start = ListenBenchSocket.monotonicNanoseconds()
        let end = start + Int64(load.duration) * 1_000_000_000
        let group = DispatchGroup()
        for connection in 0..<load.connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let own = try drive(load, connection: connection, until: end)
                    latencies.withLock { $0 += own }
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                }
            }
            thread.start()
        }
        group.wait()
        if let message = failure.withLock({ $0 }) { throw BenchError("\(load.name): \(message)") }
        let elapsed = Double(ListenBenchSocket.monotonicNanoseconds() - start) / 1e9
        let sorted = latencies.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { throw BenchError("\(load.name): no call completed") }
        func percentile(_ p: Double) -> Double {
            Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
        }
        return GRPCResult(
            load: load, callsPerSecond: Double(sorted.count) / elapsed, calls: sorted.count,
            latencyP50: percentile(0.5), latencyP90: percentile(0.9), latencyP99: percentile(0.99),
            latencyMax: Double(sorted[sorted.count - 1]) / 1e6)
    }

    /// One connection's calls until `end`; returns their latencies in nanoseconds.
    private static func drive(_ load: GRPCLoad, connection: Int, until end: Int64) throws -> [Int64] {
        let client = HTTP2Client(fd: try HTTP2Client.connectTCP(port: load.port))
        var inFlight: [Int32: Int64] = [:]
        var latencies: [Int64] = []
        latencies.reserveCapacity(1 << 16)
        var sequence = 0
        func submit() {
            let body = GRPCFraming.frame(load.request(connection, sequence))
            sequence += 1
            let id = client.request(path: load.method, body: body, headers: GRPCBenchMessages.metadata)
            inFlight[id] = ListenBenchSocket.monotonicNanoseconds()
        }
        for _ in 0..<load.streams { submit() }
        while !inFlight.isEmpty {
            let moved = client.pump(timeout: .seconds(10)) { client in
                inFlight.keys.contains { client.responses[$0]?.closeCode != nil }
            }
            guard moved else {
                throw BenchError(client.peerClosed ? "the server closed the connection" : "no answer for 10 s")
            }
            let now = ListenBenchSocket.monotonicNanoseconds()
            for (id, sent) in inFlight where client.responses[id]?.closeCode != nil {
                inFlight[id] = nil
                let response = client.remove(stream: id)
                guard let response, response.closeCode == 0, response.grpcStatus == "0" else {
                    throw BenchError(
                        "a call failed: grpc-status \(response?.grpcStatus ?? "none"), "
                            + (response?.trailer("grpc-message") ?? "") + " (stream closed with "
                            + "\(response?.closeCode.map(String.init) ?? "?"))")
                }
                latencies.append(now - sent)
                if now < end { submit() }
            }
        }
        return latencies
    }
}
