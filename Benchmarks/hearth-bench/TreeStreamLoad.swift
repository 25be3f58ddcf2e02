import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The streaming figure: `listeners` SSE streams on `/rooms/t{i}`, and writers that PUT a timestamp to a random
/// room's `live` child at a fixed total rate; each delivery's latency is the time from just before the PUT was sent
/// to the moment the listener's bytes were read. Writers and listeners share this process's monotonic clock.
struct TreeStreamLoad {
    let port: Int
    let listeners: Int
    let writesPerSecond: Int
    let duration: Int
    let writerThreads = 16
    let readerThreads = 4

    struct Result: Sendable {
        var listeners: Int
        var writes: Int
        var delivered: Int
        var achievedWritesPerSecond: Double
        var latenciesMilliseconds: [Double]

        func percentile(_ p: Double) -> Double? {
            guard !latenciesMilliseconds.isEmpty else { return nil }
            let sorted = latenciesMilliseconds.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
        }
    }

    /// One listener connection and what has been parsed from it.
    private final class Listener: @unchecked Sendable {
        let socket: ListenBenchConnection
        var buffer: [UInt8] = []
        var headDone = false
        var started = false
        init(socket: ListenBenchConnection) { self.socket = socket }
    }

    private struct Shared: Sendable {
        var latencies: [Double] = []
        var started = 0
        var delivered = 0
        var failure: String?
    }

    /// What the reader threads and the coordinating thread share.
    private final class Progress: Sendable {
        let shared = Mutex(Shared())
        let stop = Atomic<Bool>(false)
    }

    func run() throws -> Result {
        log("opening \(listeners) streams")
        var all: [Listener] = []
        for index in 0..<listeners {
            let socket = try ListenBenchConnection(port: port)
            // HTTP/1.0: the body comes unchunked, so SSE frames can be scanned directly.
            try socket.write(Array("GET /rooms/t\(index).json HTTP/1.0\r\nAccept: text/event-stream\r\n\r\n".utf8))
            all.append(Listener(socket: socket))
        }
        let progress = Progress()
        var readers: [Thread] = []
        let groups = stride(from: 0, to: all.count, by: (all.count + readerThreads - 1) / readerThreads).map {
            Array(all[$0..<min($0 + (all.count + readerThreads - 1) / readerThreads, all.count)])
        }
        let finished = DispatchGroup()
        for group in groups {
            finished.enter()
            let thread = Thread {
                Self.read(group, progress)
                finished.leave()
            }
            thread.name = "tree-bench-listeners"
            thread.start()
            readers.append(thread)
        }
        defer {
            progress.stop.store(true, ordering: .relaxed)
            finished.wait()
        }
        let startDeadline = ContinuousClock.now + .seconds(60)
        while progress.shared.withLock({ $0.started }) < listeners {
            if let failure = progress.shared.withLock({ $0.failure }) { throw BenchError(failure) }
            if ContinuousClock.now > startDeadline {
                throw BenchError(
                    "only \(progress.shared.withLock { $0.started }) of \(listeners) streams started within 60 s")
            }
            usleep(10_000)
        }
        log("\(listeners) streams open; writing \(writesPerSecond)/s for \(duration) s")

        let total = writesPerSecond * duration
        let begin = DispatchTime.now().uptimeNanoseconds
        // Threads, not concurrentPerform: that would run only one writer per CPU at a time.
        let writers = DispatchGroup()
        for writer in 0..<writerThreads {
            writers.enter()
            let thread = Thread { [port, listeners, writesPerSecond, writerThreads] in
                defer { writers.leave() }
                do {
                    let socket = try ListenBenchConnection(port: port)
                    var random = SystemRandomNumberGenerator()
                    for index in stride(from: writer, to: total, by: writerThreads) {
                        let slot = begin + UInt64(index) * 1_000_000_000 / UInt64(writesPerSecond)
                        let now = DispatchTime.now().uptimeNanoseconds
                        if slot > now { usleep(UInt32((slot - now) / 1000)) }
                        let room = Int.random(in: 0..<listeners, using: &random)
                        let stamp = DispatchTime.now().uptimeNanoseconds
                        let (status, _) = try socket.request(
                            "PUT", "/rooms/t\(room)/live.json?print=silent", body: Array(String(stamp).utf8))
                        guard status == 204 else { throw BenchError("PUT answered \(status)") }
                    }
                } catch {
                    progress.shared.withLock { $0.failure = "stream writers: \(error)" }
                }
            }
            thread.name = "tree-bench-writer"
            thread.start()
        }
        writers.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9
        if let failure = progress.shared.withLock({ $0.failure }) { throw BenchError(failure) }
        let drainDeadline = ContinuousClock.now + .seconds(10)
        while progress.shared.withLock({ $0.delivered }) < total, ContinuousClock.now < drainDeadline { usleep(10_000) }
        let outcome = progress.shared.withLock { $0 }
        if let failure = outcome.failure { throw BenchError(failure) }
        return Result(
            listeners: listeners, writes: total, delivered: outcome.delivered,
            achievedWritesPerSecond: Double(total) / elapsed, latenciesMilliseconds: outcome.latencies)
    }

    /// Polls a group of listener sockets and records each `live` delivery.
    private static func read(_ group: [Listener], _ progress: Progress) {
        var fds = group.map { pollfd(fd: $0.socket.fd, events: Int16(POLLIN), revents: 0) }
        let livePrefix = Array(#"{"path":"/live","data":"#.utf8)
        while !progress.stop.load(ordering: .relaxed) {
            let ready = poll(&fds, nfds_t(fds.count), 100)
            guard ready > 0 else { continue }
            var latencies: [Double] = []
            var started = 0
            for index in fds.indices where fds[index].revents != 0 {
                let listener = group[index]
                let now = DispatchTime.now().uptimeNanoseconds
                guard let bytes = try? listener.socket.read(), !bytes.isEmpty else {
                    fds[index].fd = -1
                    if !progress.stop.load(ordering: .relaxed) {
                        progress.shared.withLock { $0.failure = "a stream ended early" }
                    }
                    continue
                }
                listener.buffer += bytes
                if !listener.headDone {
                    guard let end = ListenBenchParsing.find([13, 10, 13, 10], in: listener.buffer, from: 0) else {
                        continue
                    }
                    listener.buffer.removeFirst(end + 4)
                    listener.headDone = true
                }
                while let end = ListenBenchParsing.find([10, 10], in: listener.buffer, from: 0) {
                    let frame = Array(listener.buffer[..<end])
                    listener.buffer.removeFirst(end + 2)
                    if !listener.started {
                        listener.started = true
                        started += 1
                    }
                    guard let at = ListenBenchParsing.find(livePrefix, in: frame, from: 0) else { continue }
                    let digits = frame[(at + livePrefix.count)...].prefix { (48...57).contains($0) }
                    if let stamp = UInt64(String(decoding: digits, as: UTF8.self)), now >= stamp {
                        latencies.append(Double(now - stamp) / 1e6)
                    }
                }
            }
            if !latencies.isEmpty || started > 0 {
                progress.shared.withLock { state in
                    state.latencies += latencies
                    state.delivered += latencies.count
                    state.started += started
                }
            }
        }
    }
}
