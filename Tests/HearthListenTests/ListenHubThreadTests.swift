import Dispatch
import HearthCore
import HearthStore
import Synchronization
import Testing

@testable import HearthListen

/// A sink whose sends block until released, to hold the hub's thread while the feed piles up.
final class GatedSink: ListenSink {
    let inner = FakeSink()
    let gate = DispatchSemaphore(value: 0)
    let blocking = Mutex(false)

    func send(_ responses: [ListenResponse]) -> Bool {
        if blocking.withLock({ $0 }) { gate.wait() }
        return inner.send(responses)
    }

    func heartbeat() -> Bool { inner.heartbeat() }
    func close() { inner.close() }
}

/// Polls until `condition` holds or 20 s pass; the caller asserts on the state afterwards.
func eventually(_ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition() && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
}

@Suite struct ListenHubThreadTests {
    @Test func feedChangesReachSessionsThroughTheHubsThread() async throws {
        let source = FakeSource()
        source.write("rooms/a", fields(("n", int(1))))
        let hub = ListenHub(source: source)
        try hub.start()
        let sink = FakeSink()
        let caller = ListenCaller(auth: nil)
        let session = try hub.openSession(database: testDatabase, caller: caller, sink: sink)
        try hub.submit(
            .addTarget(ListenTarget(id: 1, kind: .documents([.of("rooms/a")]))), session: session, caller: caller)
        await eventually { sink.responses.count >= 4 }
        #expect(sink.take() == ["ADD 1", "change rooms/a [1]", "CURRENT 1 @1", "marker @1"])
        source.write("rooms/a", fields(("n", int(2))))
        await eventually { sink.responses.count >= 2 }
        #expect(sink.take() == ["change rooms/a [1]", "marker @2"])
        #expect(hub.statistics.sessions == 1)
        hub.stop()
        #expect(sink.isClosed)
        #expect(throws: HearthError.self) {
            try hub.openSession(database: testDatabase, caller: caller, sink: FakeSink())
        }
    }

    @Test func theHubStartsAtTheHeadOfALongLog() throws {
        let source = FakeSource()
        for n in 1...3000 { source.write("rooms/r\(n % 7)", fields(("n", int(n))), publish: false) }
        source.prune(through: 1000)
        let hub = ListenHub(source: source)
        try hub.start()
        #expect(hub.statistics.sequence == 3000)
        hub.stop()
    }

    @Test func theHubStartsAtTheHeadWhenTheLogHoldsNoEntry() async throws {
        let source = FakeSource()
        for n in 1...20 { source.write("rooms/r\(n)", fields(("n", int(n))), publish: false) }
        source.prune(through: 20)
        let hub = ListenHub(source: source)
        try hub.start()
        defer { hub.stop() }
        #expect(hub.statistics.sequence == 20)
        // A target resumed from the head is current at once with nothing to replay, only the count that lets the
        // client check its cache.
        let sink = FakeSink()
        let caller = ListenCaller(auth: nil)
        let session = try hub.openSession(database: testDatabase, caller: caller, sink: sink)
        try hub.submit(
            .addTarget(ListenTarget(id: 1, kind: .query(query("rooms")), resumeToken: ResumeToken(sequence: 20))),
            session: session, caller: caller)
        await eventually { sink.responses.count >= 4 }
        #expect(sink.take() == ["ADD 1", "filter 1=20", "CURRENT 1 @20", "marker @20"])
    }

    @Test func aHubThatFallsBehindCatchesUpFromTheLogWithoutGapsOrRepeats() async throws {
        let source = FakeSource()
        var configuration = ListenConfiguration()
        configuration.maxQueuedRecords = 5
        configuration.logPageSize = 4
        let hub = ListenHub(source: source, configuration: configuration)
        try hub.start()
        let sink = GatedSink()
        let caller = ListenCaller(auth: nil)
        let session = try hub.openSession(database: testDatabase, caller: caller, sink: sink)
        try hub.submit(.addTarget(ListenTarget(id: 1, kind: .query(query("rooms")))), session: session, caller: caller)
        await eventually { sink.inner.responses.count >= 3 }
        #expect(sink.inner.responses.map(describe) == ["ADD 1", "CURRENT 1 @0", "marker @0"])
        sink.blocking.withLock { $0 = true }
        source.write("rooms/first", fields(("n", int(0))))
        // The hub's thread is now stuck in send; these overflow its queue and are dropped.
        for n in 1...40 { source.write("rooms/r\(n)", fields(("n", int(n)))) }
        sink.blocking.withLock { $0 = false }
        sink.gate.signal()
        await eventually {
            hub.statistics.sequence == 41 && sink.inner.responses.contains { describe($0) == "marker @41" }
        }
        let changed = sink.inner.responses.compactMap { response -> String? in
            if case .documentChange(let document, _) = response { return document.path.lastSegment }
            return nil
        }
        #expect(changed == ["first"] + (1...40).map { "r\($0)" })
        #expect(hub.statistics.catchUps >= 1)
        #expect(
            sink.inner.responses.contains { describe($0) == "marker @41" },
            "\(sink.inner.responses.map(describe)) \(hub.statistics)")
        hub.stop()
    }

    @Test func requestsAreCheckedOnTheCallersThread() throws {
        let hub = ListenHub(source: FakeSource())
        try hub.start()
        defer { hub.stop() }
        let owner = ListenCaller(auth: AuthContext(uid: "u", claims: [:], isAdmin: false))
        let session = try hub.openSession(database: testDatabase, caller: owner, sink: FakeSink())
        #expect(hub.database(ofSession: session) == testDatabase)
        #expect(throws: HearthError.self) { try hub.submit(.removeTarget(1), session: session, caller: owner) }
        #expect(throws: HearthError.self) { try hub.submit(.removeTarget(1), session: "other", caller: owner) }
        hub.closeSession(session)
        #expect(hub.database(ofSession: session) == nil)
    }
}
