import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct TargetLifecycleTests {
    private let time = Timestamp(seconds: 5, nanos: 0)
    private let document = ListenDocument(
        StoredDocument(
            path: .of("rooms/a"), fieldsJSON: Array("{}".utf8), createTime: Timestamp(seconds: 1, nanos: 0),
            updateTime: Timestamp(seconds: 1, nanos: 0)),
        database: testDatabase)

    private func described(_ actions: [TargetLifecycle.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .send(let response): describe(response)
            case .unregister: "unregister"
            }
        }
    }

    @Test func freshResultsGoBetweenAddAndCurrent() {
        var lifecycle = TargetLifecycle(id: 3, once: false)
        #expect(!lifecycle.receivesChanges)
        let actions = lifecycle.loaded(.fresh([document]), token: ResumeToken(sequence: 9), readTime: time)
        #expect(described(actions) == ["ADD 3", "change rooms/a [3]", "CURRENT 3 @9"])
        #expect(lifecycle.receivesChanges)
        #expect(lifecycle.loaded(.fresh([]), token: ResumeToken(sequence: 10), readTime: time).isEmpty, "loaded once")
    }

    @Test func aResetTellsTheClientToDropWhatItHeld() {
        var lifecycle = TargetLifecycle(id: 1, once: false)
        let actions = lifecycle.loaded(.reset([document]), token: ResumeToken(sequence: 2), readTime: time)
        #expect(described(actions) == ["ADD 1", "RESET 1", "change rooms/a [1]", "CURRENT 1 @2"])
    }

    @Test func aResumeSendsTheDifferenceAndTheCount() {
        var lifecycle = TargetLifecycle(id: 1, once: false)
        let gone = testDatabase.name(of: .of("rooms/b"))
        let deleted = testDatabase.name(of: .of("rooms/c"))
        let actions = lifecycle.loaded(
            .resumed(changed: [document], removed: [gone], deleted: [deleted], count: 4),
            token: ResumeToken(sequence: 2),
            readTime: time)
        #expect(
            described(actions) == [
                "ADD 1", "change rooms/a [1]", "remove rooms/b [1]", "delete rooms/c [1]", "filter 1=4", "CURRENT 1 @2",
            ])
    }

    @Test func onceTargetsEndRightAfterCurrent() {
        var lifecycle = TargetLifecycle(id: 1, once: true)
        let actions = lifecycle.loaded(.fresh([]), token: ResumeToken(sequence: 2), readTime: time)
        #expect(described(actions) == ["ADD 1", "CURRENT 1 @2", "REMOVE 1", "unregister"])
        #expect(lifecycle.state == .removed)
    }

    @Test func removalHappensOnce() {
        var lifecycle = TargetLifecycle(id: 1, once: false)
        _ = lifecycle.loaded(.fresh([]), token: ResumeToken(sequence: 2), readTime: time)
        #expect(described(lifecycle.removeRequested()) == ["REMOVE 1", "unregister"])
        #expect(lifecycle.removeRequested().isEmpty)
        #expect(lifecycle.failed(.invalidArgument("x")).isEmpty)
        #expect(lifecycle.sessionEnded().isEmpty)
    }

    @Test func aFailureCarriesItsCause() {
        var lifecycle = TargetLifecycle(id: 8, once: false)
        #expect(
            described(lifecycle.failed(HearthError(.permissionDenied, "no"))) == [
                "REMOVE 8 PERMISSION_DENIED", "unregister",
            ])
        #expect(lifecycle.loaded(.fresh([]), token: ResumeToken(sequence: 1), readTime: time).isEmpty)
    }

    @Test func anEndedSessionOnlyUnregisters() {
        var lifecycle = TargetLifecycle(id: 8, once: false)
        #expect(described(lifecycle.sessionEnded()) == ["unregister"])
    }
}
