#if os(Linux)
import Foundation
import HearthCore
import HearthGRPC
import HearthHTTP2
import Synchronization

/// Listeners over gRPC `Listen`, as the mobile SDKs hold them: each a bidirectional stream with one document
/// target, up to `streamsPerConnection` streams multiplexed on each h2c connection, each connection read by a thread
/// of its own. Samples are commit (`update_time`) → `document_change` decoded, on the wall clock, like the SSE
/// fleet's.
final class GRPCListenFleet: Sendable {
    /// The server's `SETTINGS_MAX_CONCURRENT_STREAMS`.
    static let streamsPerConnection = 100

    private struct State: Sendable {
        var recording = false
        /// Commit → receive, microseconds.
        var samples: [Int64] = []
        var currents = 0
        var closed = 0
        var failure: String?
    }

    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private let group = DispatchGroup()

    /// Opens `count` Listen streams on `port`, stream `i` on document `collection/d{i}`, and starts reading.
    init(port: Int, collection: String, count: Int) throws {
        var first = 0
        var connection = 0
        while first < count {
            let range = first..<min(count, first + Self.streamsPerConnection)
            let client = HTTP2Client(fd: try HTTP2Client.connectTCP(port: port))
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                read(client, documents: range, collection: collection)
            }
            thread.name = "grpc-listen-\(connection)"
            thread.start()
            first = range.upperBound
            connection += 1
        }
    }

    /// Streams whose target is current (the server's initial state sent).
    var currents: Int { state.withLock { $0.currents } }
    /// Streams the server closed, and the first error a reader met.
    var trouble: (closed: Int, failure: String?) { state.withLock { ($0.closed, $0.failure) } }

    /// Starts keeping samples (dropping earlier ones).
    func startRecording() {
        state.withLock {
            $0.samples = []
            $0.recording = true
        }
    }

    /// Stops keeping samples and returns them (commit → receive, milliseconds).
    func stopRecording() -> [Double] {
        state.withLock { state in
            state.recording = false
            defer { state.samples = [] }
            return state.samples.map { Double($0) / 1000 }
        }
    }

    /// Closes every connection and waits for the readers.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        group.wait()
    }

    private func read(_ client: HTTP2Client, documents: Range<Int>, collection: String) {
        var readers: [Int32: GRPCMessageReader] = [:]
        for index in documents {
            let request = GRPCBenchMessages.listen(documentPath: "\(collection)/d\(index)", targetID: 1)
            let id = client.request(
                path: GRPCBenchMessages.listen, body: GRPCFraming.frame(request), ended: false,
                headers: GRPCBenchMessages.metadata)
            readers[id] = GRPCMessageReader()
        }
        while !stopping.load(ordering: .relaxed) && !client.peerClosed {
            client.pump(timeout: .milliseconds(100)) { client in
                readers.keys.contains { !(client.responses[$0]?.data.isEmpty ?? true) }
            }
            let received = ListenBenchSocket.wallMicroseconds()
            var commits: [Int64] = []
            var currents = 0
            do {
                for id in Array(readers.keys) {
                    let data = client.takeData(stream: id)
                    if !data.isEmpty { readers[id]?.append(data) }
                    while let message = try readers[id]?.next() {
                        if let committed = try GRPCBenchMessages.changedDocumentUpdateTime(message) {
                            commits.append(received - committed)
                        } else if try GRPCBenchMessages.isCurrent(message) {
                            currents += 1
                        }
                    }
                    if client.responses[id]?.closeCode != nil {
                        readers[id] = nil
                        state.withLock { $0.closed += 1 }
                    }
                }
            } catch {
                state.withLock { $0.failure = $0.failure ?? "\(error)" }
                return
            }
            if !commits.isEmpty || currents > 0 {
                state.withLock { state in
                    state.currents += currents
                    if state.recording { state.samples += commits }
                }
            }
        }
        // Closing the socket ends every stream at once; the server frees them as for a lost connection.
        client.drop()
    }
}
#endif
