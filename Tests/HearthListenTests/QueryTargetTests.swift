import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct QueryTargetTests {
    @Test func documentsEnterChangeAndLeaveAQuery() {
        let hub = CoreHarness()
        hub.write(("rooms/a", fields(("room", str("x")))), ("rooms/b", fields(("room", str("y")))))
        let sink = hub.open()
        hub.add(1, .query(query("rooms", where: equals("room", .string("x")))))
        #expect(sink.take() == ["ADD 1", "change rooms/a [1]", "CURRENT 1 @2", "marker @2"])

        hub.write(("rooms/b", fields(("room", str("x")))))
        #expect(sink.take() == ["change rooms/b [1]", "marker @3"], "b enters")
        hub.write(("rooms/a", fields(("room", str("y")))))
        #expect(sink.take() == ["remove rooms/a [1]", "marker @4"], "a leaves although it exists")
        hub.write(("rooms/b", fields(("room", str("x")), ("n", int(1)))))
        #expect(sink.take() == ["change rooms/b [1]", "marker @5"], "b changes")
        hub.write(("rooms/b", nil))
        #expect(sink.take() == ["delete rooms/b [1]", "marker @6"], "b is deleted")
        hub.write(("rooms/a", fields(("room", str("y")), ("n", int(2)))), ("other/x", fields(("room", str("x")))))
        #expect(sink.take() == [], "changes outside the results reach no one")
    }

    @Test func aCollectionGroupQueryMatchesEveryCollectionWithItsID() {
        let hub = CoreHarness()
        let sink = hub.open()
        var group = query("messages")
        group.allDescendants = true
        hub.add(1, .query(group))
        sink.reset()
        hub.write(("rooms/a/messages/m1", fields(("n", int(1)))))
        hub.write(("users/u/messages/m2", fields(("n", int(1)))))
        hub.write(("rooms/a/notes/n1", fields(("n", int(1)))))
        #expect(
            sink.take() == [
                "change rooms/a/messages/m1 [1]", "marker @1", "change users/u/messages/m2 [1]", "marker @2",
            ])
    }

    @Test func equalQueriesShareOneViewAcrossSessions() {
        let hub = CoreHarness()
        let one = hub.open("s1")
        let two = hub.open("s2")
        let shared = query("rooms", where: equals("room", .string("x")), orderBy: [("n", false)], limit: 5)
        hub.add(1, .query(shared), session: "s1")
        let queriesBefore = hub.source.queryCount
        hub.add(9, .query(shared), session: "s2")
        #expect(hub.source.queryCount == queriesBefore, "the second listener reuses the live window")
        #expect(hub.core.views.count == 1)
        one.reset()
        two.reset()
        hub.write(("rooms/a", fields(("room", str("x")), ("n", int(1)))))
        #expect(one.take() == ["change rooms/a [1]", "marker @1"])
        #expect(two.take() == ["change rooms/a [9]", "marker @1"])
        hub.remove(1, session: "s1")
        #expect(hub.core.views.count == 1)
        hub.remove(9, session: "s2")
        #expect(hub.core.views.isEmpty)
        #expect(hub.core.index.isEmpty)
    }

    @Test func limitQueryDeliversTheFirstDocumentsInOrder() {
        let hub = CoreHarness()
        for n in [3, 1, 4, 2, 5] { hub.write(("scores/s\(n)", fields(("n", int(n))))) }
        let sink = hub.open()
        hub.add(1, .query(query("scores", orderBy: [("n", false)], limit: 2)))
        #expect(sink.take() == ["ADD 1", "change scores/s1 [1]", "change scores/s2 [1]", "CURRENT 1 @5", "marker @5"])

        hub.write(("scores/s1", nil))
        #expect(sink.take() == ["change scores/s3 [1]", "delete scores/s1 [1]", "marker @6"], "the next one enters")
        hub.write(("scores/s0", fields(("n", int(0)))))
        #expect(
            sink.take() == ["change scores/s0 [1]", "remove scores/s3 [1]", "marker @7"],
            "a new first pushes the last out")
        hub.write(("scores/s9", fields(("n", int(9)))))
        #expect(sink.take() == [], "a document after the window changes nothing visible")
        hub.write(("scores/s2", fields(("n", int(10)))))
        #expect(
            sink.take() == ["change scores/s3 [1]", "remove scores/s2 [1]", "marker @9"],
            "moving past the window leaves it")
    }

    @Test func limitQueryReadsAgainWhenItsSparesRunOut() {
        let hub = CoreHarness()
        for n in 1...30 { hub.write(("scores/s\(n)", fields(("n", int(n))))) }
        let sink = hub.open()
        hub.add(1, .query(query("scores", orderBy: [("n", false)], limit: 2)))
        sink.reset()
        let capacity = LimitWindow.capacity(forLimit: 2)
        let queries = hub.source.queryCount
        // Deleting the visible first document repeatedly uses up the spares, then forces a read.
        for n in 1...(capacity - 2) {
            hub.write(("scores/s\(n)", nil))
            #expect(sink.take() == ["change scores/s\(n + 2) [1]", "delete scores/s\(n) [1]", "marker @\(30 + n)"])
        }
        #expect(hub.source.queryCount == queries)
        let last = capacity - 1
        hub.write(("scores/s\(last)", nil))
        #expect(
            sink.take() == ["change scores/s\(last + 2) [1]", "delete scores/s\(last) [1]", "marker @\(30 + last)"])
        #expect(hub.source.queryCount == queries + 1, "the window was read again")
    }

    @Test func aLimitWindowReadRacingWithWritesIsTakenAtTheHubsPosition() {
        let hub = CoreHarness()
        for n in 1...3 { hub.write(("scores/s\(n)", fields(("n", int(n))))) }
        // Two commits land between the hub's query and its read of the change log.
        hub.source.state.withLock {
            $0.afterNextQuery = [(.of("scores/s0"), fields(("n", int(0)))), (.of("scores/s2"), nil)]
        }
        let sink = hub.open()
        hub.add(1, .query(query("scores", orderBy: [("n", false)], limit: 2)))
        #expect(sink.take() == ["ADD 1", "change scores/s1 [1]", "change scores/s2 [1]", "CURRENT 1 @3", "marker @3"])
        hub.core.apply((try? hub.source.changes(after: 3, limit: 10)) ?? [], now: .zero)
        #expect(sink.take() == ["change scores/s0 [1]", "remove scores/s2 [1]", "marker @5"])
    }

    @Test func aQueryTheStoreRefusesRemovesTheTargetWithTheCause() {
        let hub = CoreHarness()
        hub.source.state.withLock { $0.failQueries = .failedPrecondition("The query requires an index.") }
        let sink = hub.open()
        hub.add(4, .query(query("rooms", orderBy: [("n", false)])))
        #expect(sink.take() == ["REMOVE 4 FAILED_PRECONDITION", "marker @0"])
        #expect(hub.released == [TargetKey(session: "s1", target: 4)])
        #expect(hub.core.views.isEmpty)
    }
}
