#if os(Linux)
import Foundation
import HearthCore
import HearthListen
import HearthStore
import Synchronization

/// How the cost of matching one write grows with the number of listening queries, measured in process on the hub
/// itself (no HTTP, no store): `Q` distinct queries on one collection, then writes that none of them match, so
/// the time per write is the matching alone.
///
/// - Equality-filtered queries (`owner == "u<i>"`) are filed under their value: a write is checked only against the
///   queries pinned to its old or new `owner`, so the cost should stay flat as `Q` grows.
/// - Range-filtered queries (`n > <i>`) pin nothing: every write is checked against all of them (linear).
enum ListenMatchingBenchmark {
    struct Row: Sendable {
        var queries: Int
        var equalityMicroseconds: Double
        var rangeMicroseconds: Double
    }

    static func run(queryCounts: [Int]) throws -> [Row] {
        try queryCounts.map { count in
            Row(
                queries: count,
                equalityMicroseconds: try measure(
                    queries: count, filter: { .field(FieldPath(segments: ["owner"]), .equal, .string("u\($0)")) }),
                rangeMicroseconds: try measure(
                    queries: count,
                    filter: { .field(FieldPath(segments: ["n"]), .greaterThan, .integer(1_000_000 + Int64($0))) }))
        }
    }

    private static func measure(queries: Int, filter: (Int) -> QueryFilter) throws -> Double {
        let source = MemorySource()
        var configuration = ListenConfiguration()
        configuration.maxTargetsPerSession = queries + 1
        let hub = ListenHub(source: source, configuration: configuration)
        try hub.start()
        defer { hub.stop() }
        let caller = ListenCaller(auth: nil)
        let database = DatabaseName(project: "bench")
        let session = try hub.openSession(database: database, caller: caller, sink: CountingSink())
        for index in 0..<queries {
            let query = StructuredQuery(parent: .root, collectionID: "m", filter: filter(index))
            try hub.submit(
                .addTarget(ListenTarget(id: Int32(index + 1), kind: .query(query))), session: session, caller: caller)
        }
        try waitUntil { hub.statistics.targets == queries }
        // Writes nobody listens for: an owner no query names, an n below every bound.
        let writes = max(500, min(20_000, 4_000_000 / max(1, queries)))
        let fields = Value.encodeFields(["owner": .string("nobody"), "n": .integer(5), "text": .string("hello")])
        let time = Timestamp(seconds: 1_700_000_000, nanos: 0)
        let records = (0..<writes).map { index -> ChangeRecord in
            let path = ResourcePath(segments: ["m", "d\(index % 1000)"])
            let document = StoredDocument(path: path, fieldsJSON: fields, createTime: time, updateTime: time)
            return ChangeRecord(
                sequence: Int64(index + 1), commitTime: time, path: path, before: document, after: document)
        }
        let before = hub.statistics.changesProcessed
        let start = ContinuousClock.now
        for batch in stride(from: 0, to: records.count, by: 100) {
            source.changeFeed.publish(Array(records[batch..<min(batch + 100, records.count)]))
        }
        try waitUntil { hub.statistics.changesProcessed - before >= writes }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds / Double(writes) * 1e6
    }

    private static func waitUntil(_ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(300)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw BenchError("the in-process hub did not finish in 300 s") }
            usleep(200)
        }
    }
}

/// A store with no documents and an empty change log: the hub's reads return nothing.
private final class MemorySource: ListenSource {
    let changeFeed = ChangeFeed<ChangeRecord>()
    func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] { [] }
    func head() throws(HearthError) -> Int64 { 0 }
    func covers(after sequence: Int64) throws(HearthError) -> Bool { true }
    func runQuery(_ query: StructuredQuery) throws(HearthError) -> [StoredDocument] { [] }
    func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?] { paths.map { _ in nil } }
}

/// A sink that only counts.
private final class CountingSink: ListenSink {
    private let count = Mutex(0)
    func send(_ responses: [ListenResponse]) -> Bool {
        count.withLock { $0 += responses.count }
        return true
    }
    func heartbeat() -> Bool { true }
    func close() {}
}
#endif
