#if os(Linux)
import Dispatch
import Foundation
import Glibc
import Synchronization

/// One received event the listener benchmark measures.
struct ListenSample: Sendable {
    enum Kind: Sendable {
        /// A `documentChange`: `sent` is the document's `t` field (when the writer set one), `committed` its
        /// `updateTime`.
        case document
        /// A consistency marker after at least one document event: `committed` is its `readTime`.
        case marker
    }

    var kind: Kind
    var connection: Int
    /// Monotonic nanoseconds when the write was sent (0 when unknown).
    var sent: Int64
    /// Wall-clock microseconds of the commit.
    var committed: Int64
    /// Monotonic nanoseconds when the event was parsed.
    var receivedMonotonic: Int64
    /// Wall-clock microseconds when the event was parsed.
    var receivedWall: Int64
}

/// Thousands of SSE connections read by a few threads with epoll: the benchmark's compiled, multi-threaded load
/// client (a single-threaded client tops out near 30,000 events/s, DESIGN §2).
final class ListenFleet: Sendable {
    struct Counters: Sendable {
        var recording = false
        var samples: [ListenSample] = []
        var currents = 0
        var markers = 0
        var documents = 0
        /// Document events kept since recording started.
        var recordedDocuments = 0
        var closed = 0
    }

    private let loops: [FleetLoop]
    private let counters = Mutex(Counters())

    init(threads: Int) {
        loops = (0..<max(1, threads)).map { _ in FleetLoop() }
        for loop in loops { loop.start(fleet: self) }
    }

    /// Opens `count` streams with `GET path` (Accept: text/event-stream), `parallelism` at a time; returns each
    /// stream's session ID (from its first event).
    func open(port: Int, path: String, count: Int, parallelism: Int) throws -> [String] {
        let sessions = Mutex([String](repeating: "", count: count))
        let failure = Mutex<BenchError?>(nil)
        let group = DispatchGroup()
        for worker in 0..<parallelism {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                for index in stride(from: worker, to: count, by: parallelism) {
                    do {
                        let (fd, session, decoder) = try Self.openStream(port: port, path: path)
                        sessions.withLock { $0[index] = session }
                        loops[index % loops.count].adopt(fd: fd, index: index, decoder: decoder)
                    } catch {
                        failure.withLock { $0 = $0 ?? (error as? BenchError) ?? BenchError("\(error)") }
                        return
                    }
                }
            }
            thread.start()
        }
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return sessions.withLock { $0 }
    }

    /// Closes every stream and stops the reading threads.
    func stop() {
        for loop in loops { loop.stop() }
    }

    /// Starts keeping samples (dropping earlier ones).
    func startRecording() {
        counters.withLock {
            $0.samples = []
            $0.samples.reserveCapacity(100_000)
            $0.recordedDocuments = 0
            $0.recording = true
        }
    }

    /// Stops keeping samples and returns them.
    func stopRecording() -> [ListenSample] {
        counters.withLock { state in
            state.recording = false
            let samples = state.samples
            state.samples = []
            return samples
        }
    }

    var snapshot: Counters {
        counters.withLock { state in
            var copy = state
            copy.samples = []
            return copy
        }
    }

    func noteClosed() { counters.withLock { $0.closed += 1 } }

    /// Connects, sends the GET, reads the response head and the `session` event.
    private static func openStream(port: Int, path: String) throws -> (Int32, String, SSEDecoder) {
        let fd = try ListenBenchSocket.connect(port: port)
        try ListenBenchSocket.write(
            fd, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8))
        var decoder = SSEDecoder()
        var scratch = [UInt8](repeating: 0, count: 16_384)
        var session: String?
        while session == nil {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                close(fd)
                throw BenchError(
                    "a listen stream closed before its session event: \(String(decoding: decoder.head, as: UTF8.self))")
            }
            decoder.feed(scratch[..<count])
            if decoder.status != 0 && decoder.status != 200 {
                close(fd)
                throw BenchError("GET \(path) answered \(decoder.status)")
            }
            decoder.nextEvents { event in
                if session == nil,
                    let start = ListenBenchParsing.find(Array(#""session":""#.utf8), in: Array(event), from: 0)
                {
                    let bytes = Array(event)
                    let valueStart = start + 11
                    let valueEnd = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\"")) ?? bytes.count
                    session = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
                }
            }
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        return (fd, session!, decoder)
    }

    private static let documentPrefix = Array(#"data: {"documentChange""#.utf8)
    private static let currentPrefix = Array(#"data: {"targetChange":{"targetChangeType":"CURRENT""#.utf8)
    private static let markerPrefix = Array(
        #"data: {"targetChange":{"targetChangeType":"NO_CHANGE","resumeToken""#.utf8)
    private static let tField = Array(#""t":{"integerValue":""#.utf8)
    private static let updateTime = Array(#""updateTime":""#.utf8)
    private static let readTime = Array(#""readTime":""#.utf8)

    /// Classifies one event on the reading thread. Returns whether it was a document event.
    func handle(_ event: ArraySlice<UInt8>, connection: Int, documentsSinceMarker: Int) -> Bool {
        func hasPrefix(_ prefix: [UInt8]) -> Bool {
            event.count >= prefix.count && event.prefix(prefix.count).elementsEqual(prefix)
        }
        if hasPrefix(Self.documentPrefix) {
            let receivedMonotonic = ListenBenchSocket.monotonicNanoseconds()
            let receivedWall = ListenBenchSocket.wallMicroseconds()
            let sent = ListenBenchParsing.integer(after: Self.tField, in: event) ?? 0
            let committed = ListenBenchParsing.time(after: Self.updateTime, in: event) ?? 0
            counters.withLock { state in
                state.documents += 1
                if state.recording {
                    state.recordedDocuments += 1
                    state.samples.append(
                        ListenSample(
                            kind: .document, connection: connection, sent: sent, committed: committed,
                            receivedMonotonic: receivedMonotonic, receivedWall: receivedWall))
                }
            }
            return true
        }
        if hasPrefix(Self.markerPrefix) {
            let receivedWall = ListenBenchSocket.wallMicroseconds()
            let receivedMonotonic = ListenBenchSocket.monotonicNanoseconds()
            let committed = documentsSinceMarker > 0 ? ListenBenchParsing.time(after: Self.readTime, in: event) : nil
            counters.withLock { state in
                state.markers += 1
                if state.recording, let committed {
                    state.samples.append(
                        ListenSample(
                            kind: .marker, connection: connection, sent: 0, committed: committed,
                            receivedMonotonic: receivedMonotonic, receivedWall: receivedWall))
                }
            }
            return false
        }
        if hasPrefix(Self.currentPrefix) {
            counters.withLock { $0.currents += 1 }
        }
        return false
    }
}

/// One reading thread, its epoll set, and the connections it owns.
final class FleetLoop: Sendable {
    private struct Adoption: Sendable {
        let fd: Int32
        let index: Int
        let decoder: SSEDecoder
    }

    private let incoming = Mutex<[Adoption]>([])
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    func start(fleet: ListenFleet) {
        let thread = Thread { [self] in run(fleet) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    func adopt(fd: Int32, index: Int, decoder: SSEDecoder) {
        incoming.withLock { $0.append(Adoption(fd: fd, index: index, decoder: decoder)) }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }

    private struct Connection {
        let fd: Int32
        let index: Int
        var decoder: SSEDecoder
        var documentsSinceMarker = 0
    }

    private func run(_ fleet: ListenFleet) {
        guard let epoll = Epoll() else {
            FileHandle.standardError.write(Data("hearth-bench: epoll is not available\n".utf8))
            finished.signal()
            return
        }
        var connections: [Int32: Connection] = [:]
        var events = [UInt8](repeating: 0, count: 512 * Epoll.eventSize)
        var scratch = [UInt8](repeating: 0, count: 65_536)
        while !stopping.load(ordering: .relaxed) {
            for adoption in incoming.withLock({ list in
                defer { list = [] }
                return list
            }) {
                var connection = Connection(fd: adoption.fd, index: adoption.index, decoder: adoption.decoder)
                // Events that arrived together with the session event.
                Self.dispatch(&connection, fleet)
                connections[adoption.fd] = connection
                epoll.add(adoption.fd)
            }
            for fd in epoll.ready(into: &events, milliseconds: 20) {
                guard var connection = connections[fd] else { continue }
                var open = true
                while true {
                    let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count > 0 {
                        connection.decoder.feed(scratch[..<count])
                        if count < scratch.count { break }
                    } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                        break
                    } else {
                        open = false
                        break
                    }
                }
                Self.dispatch(&connection, fleet)
                if open {
                    connections[fd] = connection
                } else {
                    epoll.remove(fd)
                    close(fd)
                    connections[fd] = nil
                    fleet.noteClosed()
                }
            }
        }
        for fd in connections.keys { close(fd) }
        for adoption in incoming.withLock({ $0 }) { close(adoption.fd) }
        epoll.close()
        finished.signal()
    }

    /// Hands a connection's complete events to the fleet, tracking documents since the last marker.
    private static func dispatch(_ connection: inout Connection, _ fleet: ListenFleet) {
        var events: [ArraySlice<UInt8>] = []
        connection.decoder.nextEvents { events.append($0) }
        for event in events {
            if fleet.handle(event, connection: connection.index, documentsSinceMarker: connection.documentsSinceMarker)
            {
                connection.documentsSinceMarker += 1
            } else if event.starts(with: noChange) {
                connection.documentsSinceMarker = 0
            }
        }
    }

    private static let noChange = Array("data: {\"targetChange\":{\"targetChangeType\":\"NO_CHANGE\"".utf8)
}

/// Undoes HTTP chunked encoding and splits Server-Sent Events.
struct SSEDecoder: Sendable {
    private(set) var head: [UInt8] = []
    private(set) var status = 0
    private var raw: [UInt8] = []
    private var rawStart = 0
    private var text: [UInt8] = []
    private var headDone = false

    mutating func feed(_ bytes: ArraySlice<UInt8>) {
        raw.append(contentsOf: bytes)
        if !headDone {
            guard let end = ListenBenchParsing.find([13, 10, 13, 10], in: raw, from: 0) else { return }
            head = Array(raw[..<end])
            status = Int(String(decoding: head, as: UTF8.self).split(separator: " ").dropFirst().first ?? "") ?? 0
            rawStart = end + 4
            headDone = true
        }
        while let lineEnd = ListenBenchParsing.find([13, 10], in: raw, from: rawStart) {
            var size = 0
            for byte in raw[rawStart..<lineEnd] {
                guard let digit = Self.hexValue(byte) else { break }
                size = size * 16 + digit
            }
            let dataStart = lineEnd + 2
            guard raw.count >= dataStart + size + 2 else { break }
            text.append(contentsOf: raw[dataStart..<(dataStart + size)])
            rawStart = dataStart + size + 2
        }
        if rawStart > 0 && rawStart == raw.count {
            raw.removeAll(keepingCapacity: true)
            rawStart = 0
        } else if rawStart > 65_536 {
            raw.removeFirst(rawStart)
            rawStart = 0
        }
    }

    /// Calls `body` with each complete event (without its blank line), oldest first.
    mutating func nextEvents(_ body: (ArraySlice<UInt8>) -> Void) {
        var start = 0
        while let end = ListenBenchParsing.find([10, 10], in: text, from: start) {
            body(text[start..<end])
            start = end + 2
        }
        if start > 0 { text.removeFirst(start) }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 48...57: return Int(byte) - 48
        case 97...102: return Int(byte) - 87
        case 65...70: return Int(byte) - 55
        default: return nil
        }
    }
}
#endif
