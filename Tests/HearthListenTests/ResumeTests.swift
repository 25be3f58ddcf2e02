import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct ResumeTests {
    @Test func resumingADocumentTargetSendsOnlyWhatChangedSince() {
        let hub = CoreHarness()
        hub.write(
            ("rooms/a", fields(("n", int(1)))), ("rooms/b", fields(("n", int(1)))), ("rooms/c", fields(("n", int(1)))))
        let first = hub.open("s1")
        let targets: ListenTarget.Kind = .documents([.of("rooms/a"), .of("rooms/b"), .of("rooms/c"), .of("rooms/d")])
        hub.add(1, targets, session: "s1")
        #expect(first.take().last == "marker @3")
        hub.core.close(session: "s1")

        hub.write(("rooms/a", fields(("n", int(2)))))
        hub.write(("rooms/b", nil))
        hub.write(("rooms/d", fields(("n", int(1)))))
        let second = hub.open("s2")
        hub.add(1, targets, session: "s2", token: ResumeToken(sequence: 3))
        #expect(
            second.take() == [
                "ADD 1", "change rooms/a [1]", "change rooms/d [1]", "delete rooms/b [1]", "filter 1=3", "CURRENT 1 @6",
                "marker @6",
            ])
    }

    @Test func resumingAtTheCurrentPositionSendsNoDocuments() {
        let hub = CoreHarness()
        hub.write(("rooms/a", fields(("room", str("x")))))
        let sink = hub.open()
        hub.add(2, .query(query("rooms", where: equals("room", .string("x")))), token: ResumeToken(sequence: 1))
        #expect(sink.take() == ["ADD 2", "filter 2=1", "CURRENT 2 @1", "marker @1"])
    }

    @Test func resumingAQueryReportsDocumentsThatLeftIt() {
        let hub = CoreHarness()
        hub.write(("rooms/a", fields(("room", str("x")))), ("rooms/b", fields(("room", str("x")))))
        let sink = hub.open()
        let kind = ListenTarget.Kind.query(query("rooms", where: equals("room", .string("x"))))
        hub.write(("rooms/a", fields(("room", str("y")))), ("rooms/c", fields(("room", str("x")))))
        hub.add(1, kind, token: ResumeToken(sequence: 2))
        #expect(
            sink.take() == [
                "ADD 1", "change rooms/c [1]", "remove rooms/a [1]", "filter 1=2", "CURRENT 1 @4", "marker @4",
            ])
    }

    @Test func resumingALimitQueryReportsDocumentsTheLimitPushedOut() {
        let hub = CoreHarness()
        for n in 1...4 { hub.write(("scores/s\(n)", fields(("n", int(n))))) }
        let sink = hub.open()
        let kind = ListenTarget.Kind.query(query("scores", orderBy: [("n", false)], limit: 2))
        hub.write(("scores/s0", fields(("n", int(0)))))
        hub.add(1, kind, token: ResumeToken(sequence: 4))
        // At 4 the client held s1, s2; now s0, s1: s0 entered, s2 was pushed out (it still exists).
        #expect(
            sink.take() == [
                "ADD 1", "change scores/s0 [1]", "remove scores/s2 [1]", "filter 1=2", "CURRENT 1 @5", "marker @5",
            ])
    }

    @Test func aTokenTheLogNoLongerCoversGetsAReset() {
        let hub = CoreHarness()
        for n in 1...5 { hub.write(("rooms/r\(n)", fields(("n", int(n))))) }
        hub.source.prune(through: 3)
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/r1"), .of("rooms/r5")]), token: ResumeToken(sequence: 1))
        #expect(
            sink.take() == [
                "ADD 1", "RESET 1", "change rooms/r1 [1]", "change rooms/r5 [1]", "CURRENT 1 @5", "marker @5",
            ])
    }

    @Test func aTokenFromTheFutureOrTooFarBackGetsAReset() {
        var configuration = ListenConfiguration()
        configuration.maxResumeRecords = 2
        let hub = CoreHarness(configuration: configuration)
        for n in 1...5 { hub.write(("rooms/r\(n)", fields(("n", int(n))))) }
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/r1")]), token: ResumeToken(sequence: 99))
        #expect(sink.take() == ["ADD 1", "RESET 1", "change rooms/r1 [1]", "CURRENT 1 @5", "marker @5"])
        hub.add(2, .documents([.of("rooms/r1")]), token: ResumeToken(sequence: 1))
        #expect(sink.take() == ["ADD 2", "RESET 2", "change rooms/r1 [2]", "CURRENT 2 @5", "marker @5"])
        hub.add(3, .documents([.of("rooms/r1")]), token: ResumeToken(sequence: 3))
        #expect(sink.take() == ["ADD 3", "filter 3=1", "CURRENT 3 @5", "marker @5"])
    }

    @Test func resumeTokensRoundTripAndRejectForeignBytes() {
        let token = ResumeToken(sequence: 1_234_567_890_123)
        #expect(ResumeToken(base64: token.base64) == token)
        #expect(ResumeToken(base64: "AAAA") == nil)
        #expect(ResumeToken(base64: "not base64!") == nil)
        #expect(ResumeToken(base64: Base64URL.encodeStandard([2, 0, 0, 0, 0, 0, 0, 0, 1])) == nil, "unknown version")
    }
}
