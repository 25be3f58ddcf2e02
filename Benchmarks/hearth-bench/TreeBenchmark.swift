import Foundation
import Synchronization

/// The tree issue's figures, on a server of their own seeded with `options.treeLeaves` leaves
/// (`/rooms/t{0…}/m{0…9}/f{0…9}`, 100 leaves per room):
/// - leaf writes at depth 4 (`PUT /rooms/t{i}/m{j}/f{k}.json`, random existing leaves) with wrk;
/// - GETs of one 100-leaf room, one client, with the server's own latency from its `/metrics` histogram;
/// - 1,000 streams on `/rooms/t{i}` while 1,000 writes/s land on random rooms, delivery latency at the client.
struct TreeBenchmark {
    let options: BenchOptions
    let wrk: WrkRunner

    /// Everything measured.
    struct Results: Sendable {
        var leaves = 0
        var seedLeavesPerSecond = 0.0
        var writes: WrkResult?
        var gets: WrkResult?
        /// Server-side latency of the GETs, from the `tree.get` histogram: share of requests at or under 0.5 ms
        /// and 1 ms, and the upper bound of the bucket holding the median (the histogram's resolution).
        var serverGetShareUnderHalfMillisecond: Double?
        var serverGetShareUnderMillisecond: Double?
        var serverGetMedianBoundMilliseconds: Double?
        var stream: TreeStreamLoad.Result?
        var peakRSS: Int?
    }

    static let leavesPerRoom = 100

    func run(workDirectory: URL) throws -> Results {
        let dataDirectory = workDirectory.appendingPathComponent("tree-data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let server = try HearthServerProcess(
            binary: options.hearthPath, dataDirectory: dataDirectory, logDirectory: workDirectory,
            threads: options.serverThreads)
        var results = Results()
        do {
            let client = SetupClient(baseURL: server.baseURL)
            let rooms = max(1, options.treeLeaves / Self.leavesPerRoom)
            results.leaves = rooms * Self.leavesPerRoom
            let seedStart = ContinuousClock.now
            try seed(rooms: rooms, client: client)
            results.seedLeavesPerSecond = Double(results.leaves) / (ContinuousClock.now - seedStart).seconds
            try client.expect("GET", "/rooms/t\(rooms - 1)/m9/f9.json", bodyContains: "9")

            results.writes = try wrk.run(
                WrkLoad(
                    name: "hearth, tree leaf PUT at depth 4", url: server.baseURL + "/rooms",
                    script: Self.leafWriteScript(rooms: rooms), threads: options.wrkThreads,
                    connections: options.connections, duration: options.duration))

            let before = try Self.getHistogram(client)
            results.gets = try wrk.run(
                WrkLoad(
                    name: "hearth, tree GET of a 100-leaf room", url: server.baseURL + "/rooms",
                    script: Self.roomGetScript(rooms: rooms), threads: 1, connections: 1,
                    duration: min(options.duration, 5)))
            let after = try Self.getHistogram(client)
            let counts = zip(after.cumulative, before.cumulative).map { $0 - $1 }
            let total = after.total - before.total
            if total > 0 {
                results.serverGetShareUnderHalfMillisecond = Double(counts[0]) / Double(total)
                results.serverGetShareUnderMillisecond = Double(counts[1]) / Double(total)
                results.serverGetMedianBoundMilliseconds = zip(after.bounds, counts)
                    .first { 2 * $0.1 >= total }.map { $0.0 * 1000 }
            }

            if options.treeListeners > 0 {
                guard let port = Int(server.baseURL.split(separator: ":").last ?? "") else {
                    throw BenchError("no port in \(server.baseURL)")
                }
                results.stream = try TreeStreamLoad(
                    port: port, listeners: min(options.treeListeners, rooms),
                    writesPerSecond: options.treeWritesPerSecond,
                    duration: options.duration
                ).run()
            }
            results.peakRSS = server.peakResidentBytes()
        } catch {
            _ = try? server.stop()
            throw BenchError("\(error)\n" + server.recentErrors())
        }
        let status = try server.stop()
        guard status == 0 else {
            throw BenchError("hearth (tree) exited with status \(status)\n" + server.recentErrors())
        }
        return results
    }

    /// PATCHes of 100 rooms (10,000 leaves) each, from two clients.
    private func seed(rooms: Int, client: SetupClient) throws {
        log("seeding \(rooms * Self.leavesPerRoom) tree leaves")
        let batches = stride(from: 0, to: rooms, by: 100).map { $0 }
        let failure = Mutex<(any Error)?>(nil)
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while failure.withLock({ $0 == nil }) {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < batches.count else { return }
                var members: [String] = []
                for room in batches[index]..<min(batches[index] + 100, rooms) {
                    let messages = (0..<10).map { m in
                        "\"m\(m)\":{"
                            + (0..<10).map { f in "\"f\(f)\":\(room * 100 + m * 10 + f)" }.joined(separator: ",") + "}"
                    }
                    members.append("\"t\(room)\":{" + messages.joined(separator: ",") + "}")
                }
                do {
                    let (status, text) = try client.send(
                        "PATCH", "/rooms.json?print=silent", json: "{" + members.joined(separator: ",") + "}")
                    guard status == 204 else {
                        throw BenchError("seeding PATCH answered \(status): \(text.prefix(300))")
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// `PUT /rooms/t{i}/m{j}/f{k}.json` of a number, at random among the seeded leaves.
    static func leafWriteScript(rooms: Int) -> String {
        """
        local threads = 0
        function setup(thread)
          threads = threads + 1
          thread:set("thread_number", threads)
        end
        function init(args)
          math.randomseed(os.time() * 1000 + thread_number)
        end
        function request()
          local path = string.format("/rooms/t%d/m%d/f%d.json", math.random(\(rooms)) - 1, math.random(10) - 1, math.random(10) - 1)
          return wrk.format("PUT", path, {["Content-Type"] = "application/json"}, tostring(math.random(1000000)))
        end
        """
    }

    /// `GET /rooms/t{i}.json` of a random room.
    static func roomGetScript(rooms: Int) -> String {
        """
        function init(args)
          math.randomseed(os.time())
        end
        function request()
          return wrk.format("GET", string.format("/rooms/t%d.json", math.random(\(rooms)) - 1))
        end
        """
    }

    /// The `tree.get` latency histogram from `/metrics`: bucket bounds (seconds) and cumulative counts.
    static func getHistogram(_ client: SetupClient) throws -> (bounds: [Double], cumulative: [Int], total: Int) {
        let text = try client.expect("GET", "/metrics", bodyContains: "hearth_")
        var bounds: [Double] = []
        var cumulative: [Int] = []
        var total = 0
        for line in text.split(separator: "\n")
        where line.hasPrefix("hearth_http_request_duration_seconds_bucket{route=\"tree.get\"") {
            guard let le = line.range(of: "le=\""), let close = line[le.upperBound...].firstIndex(of: "\""),
                let count = Int(line.split(separator: " ").last ?? "")
            else { continue }
            let bound = String(line[le.upperBound..<close])
            if bound == "+Inf" {
                total = count
            } else if let value = Double(bound) {
                bounds.append(value)
                cumulative.append(count)
            }
        }
        if bounds.isEmpty { return ([0.0005, 0.001], [0, 0], 0) }
        return (bounds, cumulative, total)
    }
}
