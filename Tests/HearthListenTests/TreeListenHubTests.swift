import Dispatch
import HearthCore
import HearthStore
import Synchronization
import Testing

@testable import HearthListen

/// A tree sink whose sends block while `blocking`, to hold the hub's thread while the feed piles up.
final class GatedTreeSink: TreeListenSink {
    let inner = FakeTreeSink()
    let gate = DispatchSemaphore(value: 0)
    let blocking = Mutex(false)
    let blockedOnce = Atomic<Bool>(false)

    var capacity: Int { inner.capacity }
    var isClosed: Bool { inner.isClosed }

    func send(_ event: TreeEvent, frame: [UInt8]) -> Bool {
        if blocking.withLock({ $0 }) {
            blockedOnce.store(true, ordering: .sequentiallyConsistent)
            gate.wait()
        }
        return inner.send(event, frame: frame)
    }

    func refuseOversized(location: TreePath, bytes: Int, capacity: Int) {
        inner.refuseOversized(location: location, bytes: bytes, capacity: capacity)
    }

    func close() { inner.close() }
}

/// The tree hub on its thread: the feed, the bounded inbox and its catch-up, keep-alive ticks, stop.
@Suite struct TreeListenHubTests {
    /// The defaults with keep-alives an hour apart, so a test on a loaded machine sees only what it caused.
    static var quiet: TreeListenConfiguration {
        var configuration = TreeListenConfiguration()
        configuration.keepAliveInterval = .seconds(3600)
        return configuration
    }

    @Test func feedChangesReachStreamsThroughTheHubsThreadInOrder() async throws {
        let source = FakeTreeSource()
        source.put("chat/m1", #""hi""#)
        let hub = TreeListenHub(source: source, configuration: Self.quiet)
        hub.start()
        defer { hub.stop() }
        let sink = FakeTreeSink()
        hub.open(TreeListenRequest(namespace: "db", location: .of("chat")), sink: sink)
        await eventually { sink.events.count >= 1 }
        #expect(sink.take() == [#"put {"path":"/","data":{"m1":"hi"}}"#])
        for n in 2...20 { source.put("chat/m\(n)", "\(n)") }
        await eventually { sink.events.count >= 19 }
        #expect(sink.take() == (2...20).map { #"put {"path":"/m\#($0)","data":\#($0)}"# })
        #expect(hub.count == 1)
        #expect(hub.statistics.listeners == 1)
    }

    @Test func aHubWhoseInboxOverflowsCatchesUpFromTheChangeLogWithoutLossOrReordering() async throws {
        let source = FakeTreeSource()
        var configuration = Self.quiet
        configuration.maxQueuedRecords = 3
        configuration.logPageSize = 4
        let hub = TreeListenHub(source: source, configuration: configuration)
        hub.start()
        defer { hub.stop() }
        let sink = GatedTreeSink()
        hub.open(TreeListenRequest(namespace: "db", location: .of("log")), sink: sink)
        await eventually { sink.inner.events.count >= 1 }
        #expect(sink.inner.take() == [#"put {"path":"/","data":null}"#])
        sink.blocking.withLock { $0 = true }
        source.put("log/first", "0")
        await eventually { sink.blockedOnce.load(ordering: .sequentiallyConsistent) }
        // The hub's thread is stuck in send: these overflow its three-change inbox and are dropped from memory.
        for n in 1...40 { source.put("log/n\(n)", "\(n)") }
        sink.blocking.withLock { $0 = false }
        sink.gate.signal()
        await eventually { hub.statistics.sequence == 41 && sink.inner.events.count >= 41 }
        let expected = [#"put {"path":"/first","data":0}"#] + (1...40).map { #"put {"path":"/n\#($0)","data":\#($0)}"# }
        #expect(sink.inner.take() == expected)
        #expect(hub.statistics.catchUps >= 1)
        // And the feed carries on after the catch-up.
        source.put("log/after", "41")
        await eventually { sink.inner.events.count >= 1 }
        #expect(sink.inner.take() == [#"put {"path":"/after","data":41}"#])
    }

    @Test func keepAlivesTickOnTheHubsThread() async throws {
        var configuration = TreeListenConfiguration()
        configuration.keepAliveInterval = .milliseconds(20)
        let hub = TreeListenHub(source: FakeTreeSource(), configuration: configuration)
        hub.start()
        defer { hub.stop() }
        let sink = FakeTreeSink()
        hub.open(TreeListenRequest(namespace: "db", location: .of("idle")), sink: sink)
        await eventually { sink.events.filter { $0 == "keep-alive null" }.count >= 2 }
        #expect(sink.events.filter { $0 == "keep-alive null" }.count >= 2)
        #expect(hub.statistics.keepAlivesSent >= 2)
    }

    @Test func aRulesChangeRejudgesEveryStream() async throws {
        let allowed = Mutex(true)
        let hub = TreeListenHub(
            source: FakeTreeSource(), configuration: Self.quiet,
            authorizer: FakeTreeAuthorizer { _ in allowed.withLock { $0 } })
        hub.start()
        defer { hub.stop() }
        let sink = FakeTreeSink()
        hub.open(TreeListenRequest(namespace: "db", location: .of("x")), sink: sink)
        await eventually { sink.events.count >= 1 }
        allowed.withLock { $0 = false }
        hub.recheckAccess()
        await eventually { sink.isClosed }
        #expect(sink.take() == [#"put {"path":"/","data":null}"#, "cancel null"])
        await eventually { hub.count == 0 }
        #expect(hub.count == 0)
    }

    @Test func aClosedStreamIsForgotten() async throws {
        let source = FakeTreeSource()
        let hub = TreeListenHub(source: source, configuration: Self.quiet)
        hub.start()
        defer { hub.stop() }
        let sink = FakeTreeSink()
        let id = hub.open(TreeListenRequest(namespace: "db", location: .of("x")), sink: sink)
        await eventually { sink.events.count >= 1 }
        hub.close(id)
        await eventually { hub.count == 0 }
        #expect(hub.count == 0)
        source.put("x", "1")
        try await Task.sleep(for: .milliseconds(50))
        #expect(sink.take() == [#"put {"path":"/","data":null}"#])
    }

    @Test func stoppingEndsEveryStreamAndTheThread() async throws {
        let source = FakeTreeSource()
        let hub = TreeListenHub(source: source, configuration: Self.quiet)
        #expect(!hub.isRunning)
        hub.start()
        #expect(hub.isRunning)
        let sinks = (0..<3).map { _ in FakeTreeSink() }
        for sink in sinks { hub.open(TreeListenRequest(namespace: "db", location: .of("s")), sink: sink) }
        await eventually { sinks.allSatisfy { $0.events.count >= 1 } }
        hub.stop()
        #expect(!hub.isRunning, "stop returns once the hub's thread is done")
        #expect(sinks.allSatisfy { $0.isClosed })
        #expect(hub.count == 0)
        #expect(source.treeFeed.subscriberCount == 0)
        // Once stopped, a new stream ends at once; stopping again does nothing.
        let late = FakeTreeSink()
        hub.open(TreeListenRequest(namespace: "db", location: .of("s")), sink: late)
        #expect(late.isClosed)
        hub.stop()
        hub.start()
        #expect(!hub.isRunning, "a stopped hub does not start again")
    }
}
