import HearthCore
import HearthStore
import Synchronization
import Testing

@testable import HearthListen

/// The tree hub's pure core, driven directly: no thread, no socket, a fake tree and fake sinks.
@Suite struct TreeHubCoreTests {
    /// What the core told the outside: streams let go of, problems, and the wall clock it reads.
    final class Outside: Sendable {
        let ended = Mutex<[Int]>([])
        let problems = Mutex<[TreeListenProblem]>([])
        let nowMillis = Mutex<Int64>(1_700_000_000_000)
    }

    /// A core over `source`, with what it let go of and what it reported.
    final class Fixture {
        let source: FakeTreeSource
        let outside: Outside
        let core: TreeHubCore
        var nextID = 0

        init(
            source: FakeTreeSource = FakeTreeSource(), configuration: TreeListenConfiguration = .init(),
            authorizer: any TreeListenAuthorizer = AllowAllTreeListenAuthorizer()
        ) {
            self.source = source
            let outside = Outside()
            self.outside = outside
            core = TreeHubCore(
                environment: TreeHubCore.Environment(
                    source: source, configuration: configuration, authorizer: authorizer,
                    nowMillis: { outside.nowMillis.withLock { $0 } },
                    report: { problem in outside.problems.withLock { $0.append(problem) } },
                    listenerEnded: { id in outside.ended.withLock { $0.append(id) } }))
        }

        /// Opens a stream at `path`; returns its sink (first `put` already taken unless `keepFirst`).
        @discardableResult
        func open(
            _ path: String, ns: String = "db", query: TreeQuery? = nil, auth: AuthContext? = nil,
            credential: (@Sendable () -> Bool)? = nil, capacity: Int = 1 << 20, keepFirst: Bool = false
        ) -> FakeTreeSink {
            nextID += 1
            let sink = FakeTreeSink(capacity: capacity)
            core.open(
                nextID,
                TreeListenRequest(
                    namespace: ns, location: .of(path), query: query, auth: auth, credentialStillValid: credential),
                sink: sink)
            if !keepFirst { _ = sink.take() }
            return sink
        }

        /// Applies what the source published since `sequence` (as the feed would hand it over).
        func deliver(after sequence: Int64 = 0) {
            core.apply(try! source.treeChanges(after: sequence, limit: .max))
        }
    }

    @Test func aStreamStartsWithAPutOfItsLocation() {
        let fixture = Fixture()
        fixture.source.put("rooms/a", #"{"n":1}"#)
        fixture.source.put("rooms/b", #""x""#)
        let sink = fixture.open("rooms", keepFirst: true)
        let empty = fixture.open("nothing/here", keepFirst: true)
        #expect(sink.take() == [#"put {"path":"/","data":{"a":{"n":1},"b":"x"}}"#])
        #expect(empty.take() == [#"put {"path":"/","data":null}"#])
        #expect(fixture.core.statistics.listeners == 2)
    }

    @Test("a change the first read held above its final point is not sent again when the feed brings it")
    func changesTheFirstReadHeldAreSentOnce() {
        let fixture = Fixture()
        fixture.source.put("rooms/a", #""1""#, publish: false)
        fixture.source.put("rooms/b", #""2""#, publish: false)
        fixture.source.put("rooms/c", #""3""#, publish: false)
        // The read's final point is 1, but 2 and 3 committed before it (numbers taken later, committed first).
        fixture.source.state.withLock { $0.readFinalPoint = 1 }
        let rooms = fixture.open("rooms", keepFirst: true)
        let b = fixture.open("rooms/b", keepFirst: true)
        #expect(rooms.take() == [#"put {"path":"/","data":{"a":"1","b":"2","c":"3"}}"#])
        #expect(b.take() == [#"put {"path":"/","data":"2"}"#])
        fixture.source.put("rooms/b", #""4""#, publish: false)
        fixture.deliver()
        // Only the write the read did not hold: 2 and 3 are already in the first put.
        #expect(rooms.take() == [#"put {"path":"/b","data":"4"}"#])
        #expect(b.take() == [#"put {"path":"/","data":"4"}"#])
    }

    @Test func aPutReachesStreamsAboveAtAndBelowItsPathOnly() {
        let fixture = Fixture()
        fixture.source.put("rooms/a", #"{"n":1,"m":0}"#)
        let root = fixture.open("")
        let rooms = fixture.open("rooms")
        let a = fixture.open("rooms/a")
        let n = fixture.open("rooms/a/n")
        let b = fixture.open("rooms/b")
        let other = fixture.open("db2root", ns: "other")
        let change = fixture.source.put("rooms/a", #"{"n":2}"#)
        fixture.core.apply([change])
        #expect(root.take() == [#"put {"path":"/rooms/a","data":{"n":2}}"#])
        #expect(rooms.take() == [#"put {"path":"/a","data":{"n":2}}"#])
        #expect(a.take() == [#"put {"path":"/","data":{"n":2}}"#])
        #expect(n.take() == [#"put {"path":"/","data":2}"#])
        #expect(b.take() == [])
        #expect(other.take() == [])
    }

    @Test func aPatchKeepsItsShapeAboveAndBecomesPutsOrPatchesBelow() {
        let fixture = Fixture()
        fixture.source.put("rooms", #"{"a":{"n":1,"m":0},"b":false}"#)
        let root = fixture.open("")
        let rooms = fixture.open("rooms")
        let a = fixture.open("rooms/a")
        let n = fixture.open("rooms/a/n")
        let b = fixture.open("rooms/b")
        let c = fixture.open("rooms/c")
        let change = fixture.source.patch("rooms", [("a/n", "3"), ("b", "true")])
        fixture.core.apply([change])
        #expect(root.take() == [#"patch {"path":"/rooms","data":{"a/n":3,"b":true}}"#])
        #expect(rooms.take() == [#"patch {"path":"/","data":{"a/n":3,"b":true}}"#])
        #expect(a.take() == [#"patch {"path":"/","data":{"n":3}}"#])
        #expect(n.take() == [#"put {"path":"/","data":3}"#])
        #expect(b.take() == [#"put {"path":"/","data":true}"#])
        #expect(c.take() == [])
    }

    @Test func changesArriveInCommitOrderEachOnce() {
        let fixture = Fixture()
        let sink = fixture.open("counter")
        let changes = (1...5).map { fixture.source.put("counter", "\($0)") }
        fixture.core.apply(Array(changes[0..<3]))
        // The feed and a catch-up overlap: what was delivered is not delivered again.
        fixture.core.apply(changes)
        #expect(sink.take() == (1...5).map { #"put {"path":"/","data":\#($0)}"# })
        #expect(fixture.core.sequence == 5)
        #expect(fixture.core.statistics.changesProcessed == 5)
    }

    @Test func aStreamSkipsWhatItsFirstReadAlreadyHeld() {
        let fixture = Fixture()
        let early = fixture.open("x")
        let first = fixture.source.put("x", "1")
        fixture.core.apply([first])
        let second = fixture.source.put("x", "2")
        // Opened after the second write committed but before the feed handed it over.
        let late = fixture.open("x", keepFirst: true)
        let third = fixture.source.put("x", "3")
        fixture.core.apply([second, third])
        #expect(early.take() == [1, 2, 3].map { #"put {"path":"/","data":\#($0)}"# })
        #expect(late.take() == [#"put {"path":"/","data":2}"#, #"put {"path":"/","data":3}"#])
    }

    @Test func streamsAtOneLocationInOneFormatShareOneEncodedFrame() {
        let fixture = Fixture()
        let one = fixture.open("shared")
        let two = fixture.open("shared")
        fixture.core.apply([fixture.source.put("shared/k", "1")])
        #expect(one.take() == two.take())
    }

    @Test func aQueryStreamSeesOnlyItsWindow() {
        let fixture = Fixture()
        fixture.source.put("scores", #"{"a":1,"b":2}"#)
        let sink = fixture.open("scores", query: TreeQuery(order: .key, limit: .first(1)), keepFirst: true)
        #expect(sink.take() == [#"put {"path":"/","data":{"a":1}}"#])
        fixture.deliver(after: 1)
        fixture.core.apply([fixture.source.put("scores/c", "3")])
        #expect(sink.take() == [])
        fixture.core.apply([fixture.source.put("scores/a", "10")])
        #expect(sink.take().count == 1)
    }

    @Test func aStreamTheRulesNoLongerAllowGetsCancelInsteadOfTheChange() {
        let allowed = Mutex(true)
        let fixture = Fixture(authorizer: FakeTreeAuthorizer { _ in allowed.withLock { $0 } })
        let sink = fixture.open("secret")
        let kept = fixture.open("secret/other")
        allowed.withLock { $0 = false }
        fixture.core.apply([fixture.source.put("secret/x", "1")])
        #expect(sink.take() == ["cancel null"])
        #expect(sink.isClosed)
        #expect(!kept.isClosed, "a stream the change did not touch is judged at the next keep-alive")
        #expect(fixture.outside.ended.withLock { $0 } == [1])
        fixture.core.keepAlive()
        #expect(kept.take() == ["cancel null"])
        #expect(fixture.core.listeners.isEmpty)
    }

    @Test func aFailedAccessCheckIsARefusalAndIsReported() {
        let fixture = Fixture(
            authorizer: FakeTreeAuthorizer { _ throws(HearthError) in
                throw HearthError(.unavailable, "rules data unreadable")
            })
        let sink = fixture.open("x")
        fixture.core.apply([fixture.source.put("x", "1")])
        #expect(sink.take() == ["cancel null"])
        #expect(
            fixture.outside.problems.withLock { $0 } == [
                .accessCheckFailed(HearthError(.unavailable, "rules data unreadable"))
            ]
        )
    }

    @Test func anExpiredTokenOrARevokedCredentialEndsTheStreamWithAuthRevoked() {
        let fixture = Fixture()
        let expiring = AuthContext(uid: "u", claims: ["exp": .integer(1_700_000_060)], isAdmin: false)
        let expired = fixture.open("a", auth: expiring)
        let valid = Mutex(true)
        let revoked = fixture.open("a", credential: { valid.withLock { $0 } })
        fixture.core.apply([fixture.source.put("a", "1")])
        #expect(expired.take() == [#"put {"path":"/","data":1}"#])
        #expect(revoked.take() == [#"put {"path":"/","data":1}"#])
        fixture.outside.nowMillis.withLock { $0 = 1_700_000_060_000 }
        valid.withLock { $0 = false }
        fixture.core.apply([fixture.source.put("a", "2")])
        #expect(expired.take() == ["auth_revoked credential is no longer valid"])
        #expect(revoked.take() == ["auth_revoked credential is no longer valid"])
        #expect(expired.isClosed && revoked.isClosed)
    }

    @Test func keepAlivesReachEveryStream() {
        let fixture = Fixture()
        let one = fixture.open("a")
        let two = fixture.open("b")
        fixture.core.keepAlive()
        #expect(one.take() == ["keep-alive null"])
        #expect(two.take() == ["keep-alive null"])
        #expect(fixture.core.statistics.keepAlivesSent == 2)
    }

    @Test func aLocationLargerThanAStreamCarriesIsRefusedWithCancel() {
        let fixture = Fixture()
        fixture.source.put("big", "\"" + String(repeating: "x", count: 500) + "\"")
        let sink = fixture.open("big", capacity: 200, keepFirst: true)
        #expect(sink.take() == ["cancel null"])
        #expect(sink.isClosed)
        #expect((sink.state.withLock { $0.refusedOversized } ?? 0) > 200)
        #expect(fixture.outside.ended.withLock { $0 } == [1])
        #expect(fixture.core.listeners.isEmpty)
    }

    @Test func aClientThatStopsTakingEventsIsDropped() {
        let fixture = Fixture()
        let sink = fixture.open("a")
        sink.refuse()
        fixture.core.apply([fixture.source.put("a", "1")])
        #expect(fixture.core.listeners.isEmpty)
        #expect(fixture.core.statistics.streamsCutOff == 1)
        #expect(fixture.outside.ended.withLock { $0 } == [1])
    }

    @Test func aFailedFirstReadClosesTheStreamAndIsReported() {
        let fixture = Fixture()
        fixture.source.state.withLock { $0.failReads = HearthError(.unavailable, "disk") }
        let sink = fixture.open("a", keepFirst: true)
        #expect(sink.take() == [])
        #expect(sink.isClosed)
        #expect(fixture.outside.problems.withLock { $0 } == [.snapshotFailed(HearthError(.unavailable, "disk"))])
        #expect(fixture.outside.ended.withLock { $0 } == [1])
    }

    @Test func catchingUpReadsTheLogFromTheLastDeliveredChangeInPages() {
        var configuration = TreeListenConfiguration()
        configuration.logPageSize = 2
        let fixture = Fixture(configuration: configuration)
        let sink = fixture.open("log")
        fixture.core.apply([fixture.source.put("log/0", "0")])
        // These were dropped from the inbox: only the change log has them.
        for n in 1...7 { fixture.source.put("log/\(n)", "\(n)", publish: false) }
        #expect(fixture.core.catchUp())
        #expect(sink.take() == (0...7).map { #"put {"path":"/\#($0)","data":\#($0)}"# })
        #expect(fixture.core.sequence == 8)
        fixture.source.state.withLock { $0.failLog = HearthError(.unavailable, "log") }
        #expect(!fixture.core.catchUp())
        #expect(fixture.outside.problems.withLock { $0 } == [.catchUpFailed(HearthError(.unavailable, "log"))])
    }

    @Test func streamsWhoseMissedChangesWerePrunedFromTheLogGetTheirLocationAfresh() {
        let fixture = Fixture()
        let sink = fixture.open("room")
        let query = fixture.open("room", query: TreeQuery(order: .key, limit: .last(1)))
        fixture.core.apply([fixture.source.put("room/a", "1")])
        for n in 2...6 { fixture.source.put("room/a", "\(n)", publish: false) }
        fixture.source.prune(through: 4)
        #expect(fixture.core.catchUp())
        #expect(sink.take() == [#"put {"path":"/a","data":1}"#, #"put {"path":"/","data":{"a":6}}"#])
        #expect(query.take() == [#"put {"path":"/a","data":1}"#, #"put {"path":"/","data":{"a":6}}"#])
        #expect(fixture.core.statistics.resynchronizations == 1)
        #expect(fixture.core.sequence == 6)
        fixture.core.apply([fixture.source.put("room/b", "7")])
        #expect(sink.take() == [#"put {"path":"/b","data":7}"#])
    }

    @Test func stoppingClosesEveryStream() {
        let fixture = Fixture()
        let sinks = (0..<3).map { fixture.open("s\($0)") }
        fixture.core.stop()
        #expect(sinks.allSatisfy { $0.isClosed })
        #expect(fixture.core.listeners.isEmpty)
        #expect(fixture.outside.ended.withLock { $0 }.sorted() == [1, 2, 3])
    }
}
