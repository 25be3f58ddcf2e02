#if os(Linux)
import Foundation
import HearthCore
import HearthListen
import HearthStore
import Synchronization

/// The hub's own cost of one write reaching many listeners, in process: matching, building each session's
/// responses and encoding them as SSE frames (as the server's sink does), without sockets.
enum ListenFanOutBenchmark {
    struct Result: Sendable {
        var listeners: Int
        /// Milliseconds from publishing the change to the last session's frames being encoded (median of rounds).
        var milliseconds: Double
    }

    static func run(listeners: Int, rounds: Int = 5) throws -> Result {
        let source = FanOutSource()
        var configuration = ListenConfiguration()
        configuration.maxSessions = listeners + 10
        let hub = ListenHub(source: source, configuration: configuration)
        try hub.start()
        defer { hub.stop() }
        let caller = ListenCaller(auth: nil)
        let database = DatabaseName(project: "demo")
        let delivered = DeliveryCounter()
        let path = ResourcePath(segments: ["hot", "one"])
        for _ in 0..<listeners {
            let session = try hub.openSession(
                database: database, caller: caller, sink: EncodingSink(delivered: delivered))
            try hub.submit(.addTarget(ListenTarget(id: 1, kind: .documents([path]))), session: session, caller: caller)
        }
        try waitUntil { hub.statistics.targets == listeners }
        let fields = Value.encodeFields(["t": .integer(1), "text": .string(String(repeating: "x", count: 200))])
        var times: [Double] = []
        for round in 0..<rounds {
            let time = Timestamp(seconds: 1_700_000_000 + Int64(round), nanos: 0)
            let document = StoredDocument(path: path, fieldsJSON: fields, createTime: time, updateTime: time)
            let record = ChangeRecord(
                sequence: Int64(round + 1), commitTime: time, path: path, before: nil, after: document)
            delivered.count.withLock { $0 = 0 }
            let start = ContinuousClock.now
            source.changeFeed.publish([record])
            try waitUntil { delivered.count.withLock { $0 } >= listeners }
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        return Result(listeners: listeners, milliseconds: times.sorted()[times.count / 2])
    }

    private static func waitUntil(_ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw BenchError("the in-process hub did not finish in 120 s") }
            usleep(100)
        }
    }
}

private final class DeliveryCounter: Sendable {
    let count = Mutex(0)
}

private final class FanOutSource: ListenSource {
    let changeFeed = ChangeFeed<ChangeRecord>()
    func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] { [] }
    func head() throws(HearthError) -> Int64 { 0 }
    func covers(after sequence: Int64) throws(HearthError) -> Bool { true }
    func runQuery(_ query: StructuredQuery) throws(HearthError) -> [StoredDocument] { [] }
    func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?] { paths.map { _ in nil } }
}

/// Encodes like the server's SSE sink (`data: <json>\n\n` per response, one buffer per send) and counts sessions
/// that received a document.
private final class EncodingSink: ListenSink {
    private let delivered: DeliveryCounter

    init(delivered: DeliveryCounter) {
        self.delivered = delivered
    }

    func send(_ responses: [ListenResponse]) -> Bool {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(responses.count * 160)
        for response in responses {
            bytes.append(contentsOf: "data: ".utf8)
            response.appendFirestoreJSON(to: &bytes)
            bytes.append(contentsOf: "\n\n".utf8)
        }
        if responses.contains(where: { if case .documentChange = $0 { return true } else { return false } }) {
            delivered.count.withLock { $0 += 1 }
        }
        return !bytes.isEmpty
    }

    func heartbeat() -> Bool { true }
    func close() {}
}
#endif
