import HearthCore
import HearthStore
import Testing

@testable import HearthListen

/// Refuses documents whose `secret` field is true, and targets on the `vault` collection.
struct SecretRefusingAuthorizer: ListenAuthorizer {
    var checksDocuments: Bool { true }

    func authorize(target: ListenTarget, database: DatabaseName, caller: ListenCaller) throws(HearthError) {
        if case .query(let query) = target.kind, query.collectionID == "vault" {
            throw HearthError(.permissionDenied, "Missing or insufficient permissions.")
        }
    }

    func authorize(
        document: StoredDocument, database: DatabaseName, target: ListenTarget, caller: ListenCaller
    ) throws(HearthError) {
        if (try? document.fields())?["secret"] == .boolean(true) {
            throw HearthError(.permissionDenied, "Missing or insufficient permissions.")
        }
    }
}

@Suite struct SessionTests {
    @Test func removingATargetStopsItsChanges() {
        let hub = CoreHarness()
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a")]))
        hub.add(2, .query(query("rooms")))
        sink.reset()
        hub.remove(1)
        #expect(sink.take() == ["REMOVE 1", "marker @0"])
        hub.write(("rooms/a", fields(("n", int(1)))))
        #expect(sink.take() == ["change rooms/a [2]", "marker @1"])
        hub.remove(2)
        #expect(sink.take() == ["REMOVE 2", "marker @1"])
        #expect(hub.core.documentWatchers.isEmpty && hub.core.views.isEmpty && hub.core.index.isEmpty)
        #expect(hub.released.isEmpty, "IDs the client removed were freed when it asked")
    }

    @Test func aOnceTargetEndsWhenCurrent() {
        let hub = CoreHarness()
        hub.write(("rooms/a", fields(("n", int(1)))))
        let sink = hub.open()
        hub.add(5, .documents([.of("rooms/a")]), once: true)
        #expect(sink.take() == ["ADD 5", "change rooms/a [5]", "CURRENT 5 @1", "REMOVE 5", "marker @1"])
        #expect(hub.released == [TargetKey(session: "s1", target: 5)])
        hub.write(("rooms/a", fields(("n", int(2)))))
        #expect(sink.take() == [])
    }

    @Test func closingASessionFreesEverything() {
        let hub = CoreHarness()
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a")]))
        hub.add(2, .query(query("rooms", orderBy: [("n", false)], limit: 3)))
        hub.core.close(session: "s1")
        #expect(sink.isClosed)
        #expect(hub.core.sessions.isEmpty && hub.core.documentWatchers.isEmpty && hub.core.views.isEmpty)
        #expect(hub.core.statistics.targets == 0)
    }

    @Test func aClientThatCannotKeepUpIsCutOff() {
        let hub = CoreHarness()
        let slow = hub.open("slow")
        let fine = hub.open("fine")
        hub.add(1, .documents([.of("rooms/a")]), session: "slow")
        hub.add(1, .documents([.of("rooms/a")]), session: "fine")
        fine.reset()
        slow.refuse()
        hub.write(("rooms/a", fields(("n", int(1)))))
        #expect(slow.isClosed)
        #expect(hub.ended == ["slow"])
        #expect(hub.core.sessions["slow"] == nil)
        #expect(hub.core.statistics.sessionsCutOff == 1)
        #expect(fine.take() == ["change rooms/a [1]", "marker @1"], "others are unaffected")
    }

    @Test func quietSessionsGetHeartbeatsAndFreshMarkers() {
        var configuration = ListenConfiguration()
        configuration.heartbeatInterval = .seconds(15)
        let hub = CoreHarness(configuration: configuration)
        let watching = hub.open("watching")
        let idle = hub.open("idle")
        hub.add(1, .documents([.of("rooms/a")]), session: "watching")
        watching.reset()
        hub.write(("rooms/b", fields(("n", int(1)))))
        hub.time = .seconds(10)
        hub.core.heartbeat(now: hub.time)
        #expect(watching.state.withLock { $0.heartbeats } == 0, "not quiet long enough")
        hub.time = .seconds(15)
        hub.core.heartbeat(now: hub.time)
        #expect(watching.state.withLock { $0.heartbeats } == 0, "a marker serves as the heartbeat")
        #expect(idle.state.withLock { $0.heartbeats } == 1)
        #expect(watching.take() == ["marker @1"], "the quiet target's token moves to the newest position")
        #expect(idle.take() == [], "a session without targets gets no marker")
        hub.time = .seconds(20)
        hub.core.heartbeat(now: hub.time)
        #expect(watching.state.withLock { $0.heartbeats } == 0, "not 15 s since the last")
        hub.time = .seconds(30)
        hub.core.heartbeat(now: hub.time)
        #expect(watching.state.withLock { $0.heartbeats } == 1, "a comment when the token is fresh")
        #expect(watching.take() == [])
        idle.refuse()
        hub.time = .seconds(46)
        hub.core.heartbeat(now: hub.time)
        #expect(hub.ended == ["idle"], "a heartbeat that cannot be written ends the session")
    }

    @Test func rulesRefusingATargetOrADocumentRemoveTheTarget() {
        let hub = CoreHarness(authorizer: SecretRefusingAuthorizer())
        hub.write(("rooms/a", fields(("n", int(1)))))
        let sink = hub.open()
        hub.add(1, .query(query("vault")))
        #expect(sink.take() == ["REMOVE 1 PERMISSION_DENIED", "marker @1"])
        hub.add(2, .query(query("rooms")))
        hub.add(3, .documents([.of("rooms/b")]))
        sink.reset()
        hub.write(("rooms/b", fields(("secret", #"{"booleanValue":true}"#))))
        let responses = sink.take()
        #expect(responses.last == "marker @2")
        #expect(Set(responses.dropLast()) == ["REMOVE 2 PERMISSION_DENIED", "REMOVE 3 PERMISSION_DENIED"])
    }

    @Test func aRefusedDocumentIsNeverDelivered() {
        let hub = CoreHarness(authorizer: SecretRefusingAuthorizer())
        let sink = hub.open()
        hub.add(2, .query(query("rooms")))
        sink.reset()
        hub.write(("rooms/b", fields(("secret", #"{"booleanValue":true}"#))))
        #expect(sink.take() == ["REMOVE 2 PERMISSION_DENIED", "marker @1"])
        #expect(hub.released == [TargetKey(session: "s1", target: 2)])
        hub.write(("rooms/c", fields(("n", int(1)))))
        #expect(sink.take() == [])
    }

    @Test func anInitialResultWithARefusedDocumentIsRefused() {
        let hub = CoreHarness(authorizer: SecretRefusingAuthorizer())
        hub.write(("rooms/a", fields(("secret", #"{"booleanValue":true}"#))))
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a")]))
        #expect(sink.take() == ["REMOVE 1 PERMISSION_DENIED", "marker @1"])
    }
}

@Suite struct SnapshotLimitTests {
    @Test func aTargetWhoseResultsExceedTheSnapshotLimitIsRefusedAlone() {
        var configuration = ListenConfiguration()
        configuration.maxSnapshotBytes = 2000
        let hub = CoreHarness(configuration: configuration)
        let blob = str(String(repeating: "x", count: 500))
        for n in 1...10 { hub.write(("big/d\(n)", fields(("blob", blob)))) }
        let sink = hub.open()
        hub.add(1, .query(query("big")))
        #expect(sink.take() == ["REMOVE 1 RESOURCE_EXHAUSTED", "marker @10"])
        hub.add(2, .query(query("big", limit: 2)))
        #expect(
            sink.take() == ["ADD 2", "change big/d1 [2]", "change big/d10 [2]", "CURRENT 2 @10", "marker @10"],
            "a limit fits")
        #expect(!sink.isClosed)
    }
}
