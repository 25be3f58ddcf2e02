#if os(Linux)
import HearthCore
import HearthHTTP
import Synchronization

/// The baseline: a bare HearthHTTP server in the benchmark process that holds SSE streams and pushes
/// pre-serialised events shaped like Hearth's (a `documentChange` and a consistency marker), with no store, hub,
/// matching or encoding. The gap between its figures and Hearth's is Hearth's own overhead.
final class ListenBaselineServer: Sendable {
    private let server: HTTPServer
    private let streams: StreamList

    /// The streams held, shared with the responder.
    private final class StreamList: Sendable {
        let list = Mutex<[HTTPEventStream]>([])
    }

    init(threads: Int) throws {
        let streams = StreamList()
        var configuration = HTTPServer.Configuration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = threads
        server = HTTPServer(
            configuration: configuration,
            responder: HTTPClosureResponder { _ in
                let stream = HTTPEventStream(maxBufferedBytes: 8 << 20)
                let index = streams.list.withLock { list -> Int in
                    list.append(stream)
                    return list.count - 1
                }
                stream.send("event: session\ndata: {\"session\":\"b\(index)\"}\n\n")
                return .stream(stream)
            })
        self.streams = streams
        try server.start()
    }

    var port: Int { server.port }

    func stop() {
        server.stop(gracePeriod: .seconds(2))
    }

    var count: Int { streams.list.withLock { $0.count } }

    /// Pushes one write's events to stream `index`.
    func push(to index: Int, document: Int, sent: Int64) {
        let bytes = Self.event(document: document, sent: sent)
        _ = streams.list.withLock { $0[index] }.send(bytes)
    }

    /// Pushes one write's events to every stream (the same bytes to all).
    func broadcast(document: Int, sent: Int64) {
        let bytes = Self.event(document: document, sent: sent)
        for stream in streams.list.withLock({ $0 }) { stream.send(bytes) }
    }

    /// The bytes Hearth would send for a write of document `own/d<document>` with `t = sent`, timed now.
    static func event(document: Int, sent: Int64) -> [UInt8] {
        let now = Timestamp(microseconds: ListenBenchSocket.wallMicroseconds()).rfc3339
        let name = "projects/demo/databases/(default)/documents/own/d\(document)"
        return Array(
            """
            data: {"documentChange":{"document":{"name":"\(name)","fields":{"t":{"integerValue":"\(sent)"}},"createTime":"\(now)","updateTime":"\(now)"},"targetIds":[1]}}

            data: {"targetChange":{"targetChangeType":"NO_CHANGE","resumeToken":"AQAAAAAAAAAB","readTime":"\(now)"}}


            """.utf8)
    }
}
#endif

#if os(Linux)
import Foundation
import Glibc

/// The baseline server runs in a child process (`hearth-bench listen-baseline-server`): 10,000 client sockets and
/// 10,000 server sockets in one process would pass the 20,000 open files a container typically allows. The child
/// stamps events with CLOCK_MONOTONIC, which is shared by every process on the machine, so latencies stay
/// comparable.
///
/// Commands on standard input, one per line, each answered `done N` on standard output:
/// `push RATE SECONDS` (one event per push to a different stream), `broadcast` (one event to every stream),
/// `broadcast RATE SECONDS` (that many broadcasts per second).
enum ListenBaselineChild {
    static func run(threads: Int) -> Int32 {
        let server: ListenBaselineServer
        do {
            server = try ListenBaselineServer(threads: threads)
        } catch {
            FileHandle.standardError.write(Data("baseline server: \(error)\n".utf8))
            return 1
        }
        FileHandle.standardOutput.write(Data("port \(server.port)\n".utf8))
        while let line = readLine() {
            let words = line.split(separator: " ")
            var done = 0
            switch (words.first, words.count) {
            case ("push"?, 3):
                let count = max(1, server.count)
                done = ListenPacer.tick(rate: Int(words[1]) ?? 1, duration: Double(words[2]) ?? 1) { sequence in
                    let index = (sequence &* 7919) % count
                    server.push(to: index, document: index, sent: ListenBenchSocket.monotonicNanoseconds())
                }
            case ("broadcast"?, 1):
                server.broadcast(document: 0, sent: ListenBenchSocket.monotonicNanoseconds())
                done = 1
            case ("broadcast"?, 3):
                done = ListenPacer.tick(rate: Int(words[1]) ?? 1, duration: Double(words[2]) ?? 1) { _ in
                    server.broadcast(document: 0, sent: ListenBenchSocket.monotonicNanoseconds())
                }
            default:
                break
            }
            FileHandle.standardOutput.write(Data("done \(done)\n".utf8))
        }
        server.stop()
        return 0
    }
}

/// The parent's handle on the baseline child.
final class ListenBaselineProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    private(set) var port = 0

    init(threads: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["listen-baseline-server", "--server-threads", String(threads)]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let first = try readLine()
        guard first.hasPrefix("port "), let port = Int(first.dropFirst(5)) else {
            throw BenchError("the baseline server did not start: \(first)")
        }
        self.port = port
    }

    /// Sends a command and waits for its `done N`; returns N.
    @discardableResult
    func command(_ text: String) throws -> Int {
        input.fileHandleForWriting.write(Data((text + "\n").utf8))
        let answer = try readLine()
        guard answer.hasPrefix("done "), let count = Int(answer.dropFirst(5)) else {
            throw BenchError("the baseline server answered \(answer) to \(text)")
        }
        return count
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }

    private func readLine() throws -> String {
        while true {
            if let newline = buffered.firstIndex(of: 10) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeFirst(newline + 1)
                return line
            }
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw BenchError("the baseline server exited") }
            buffered += data
        }
    }
}
#endif
