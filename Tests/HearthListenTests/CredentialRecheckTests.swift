import HearthCore
import Synchronization
import Testing

@testable import HearthListen

/// A session's credential is re-checked before each delivery and heartbeat; once it fails, the pending data is
/// dropped, every target ends with `REMOVE … UNAUTHENTICATED` and the session closes.
@Suite struct CredentialRecheckTests {
    @Test func aFailedCredentialEndsEveryTargetInsteadOfDelivering() {
        let hub = CoreHarness()
        let valid = Atomic(true)
        let sink = hub.open(credentialStillValid: { valid.load(ordering: .relaxed) })
        hub.add(1, .documents([.of("rooms/a")]))
        hub.add(2, .query(query("rooms")))
        sink.reset()
        hub.write(("rooms/a", fields(("n", int(1)))))
        #expect(sink.take() == ["change rooms/a [1,2]", "marker @1"])
        valid.store(false, ordering: .relaxed)
        hub.write(("rooms/a", fields(("n", int(2)))))
        #expect(sink.take() == ["REMOVE 1 UNAUTHENTICATED", "REMOVE 2 UNAUTHENTICATED"])
        #expect(sink.isClosed)
        #expect(hub.ended == ["s1"])
        #expect(hub.core.sessions.isEmpty && hub.core.documentWatchers.isEmpty && hub.core.views.isEmpty)
        #expect(hub.core.statistics.sessionsRevoked == 1)
    }

    @Test func aQuietSessionIsEndedAtItsHeartbeat() {
        var configuration = ListenConfiguration()
        configuration.heartbeatInterval = .seconds(1)
        let hub = CoreHarness(configuration: configuration)
        let valid = Atomic(true)
        let sink = hub.open(credentialStillValid: { valid.load(ordering: .relaxed) })
        hub.add(1, .documents([.of("rooms/a")]))
        sink.reset()
        valid.store(false, ordering: .relaxed)
        hub.core.heartbeat(now: .seconds(2))
        #expect(sink.take() == ["REMOVE 1 UNAUTHENTICATED"])
        #expect(sink.isClosed)
    }
}
