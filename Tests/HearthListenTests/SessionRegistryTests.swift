import HearthCore
import Testing

@testable import HearthListen

@Suite struct SessionRegistryTests {
    private let alice = ListenCaller(auth: AuthContext(uid: "alice", claims: [:], isAdmin: false))
    private let bob = ListenCaller(auth: AuthContext(uid: "bob", claims: [:], isAdmin: false))
    private let target = ListenTarget(id: 0, kind: .documents([.of("rooms/a")]))

    @Test func onlyTheOpeningCallerDrivesASession() throws {
        var registry = SessionRegistry()
        registry.open("s", identity: alice.identity, database: testDatabase)
        #expect(throws: HearthError.self) {
            try registry.admit(.addTarget(target), session: "s", caller: bob, maxTargets: 10)
        }
        do {
            _ = try registry.admit(.addTarget(target), session: "s", caller: ListenCaller(auth: nil), maxTargets: 10)
            Issue.record("an anonymous caller drove alice's session")
        } catch {
            #expect(error.code == .permissionDenied)
        }
        let refreshed = ListenCaller(auth: AuthContext(uid: "alice", claims: ["iat": 5], isAdmin: false))
        _ = try registry.admit(.addTarget(target), session: "s", caller: refreshed, maxTargets: 10)
    }

    @Test func unknownSessionsAreNotFound() {
        var registry = SessionRegistry()
        do {
            _ = try registry.admit(.removeTarget(1), session: "nope", caller: alice, maxTargets: 10)
            Issue.record("admitted")
        } catch {
            #expect(error.code == .notFound)
        }
    }

    @Test func targetIDsAreReservedAssignedAndReleased() throws {
        var registry = SessionRegistry()
        registry.open("s", identity: alice.identity, database: testDatabase)
        var explicit = target
        explicit.id = 1
        _ = try registry.admit(.addTarget(explicit), session: "s", caller: alice, maxTargets: 3)
        #expect(throws: HearthError.self) {
            try registry.admit(.addTarget(explicit), session: "s", caller: alice, maxTargets: 3)
        }
        let assigned = try registry.admit(.addTarget(target), session: "s", caller: alice, maxTargets: 3)
        #expect(assigned == .addTarget(ListenTarget(id: 2, kind: target.kind)), "0 gets the next free ID")
        _ = try registry.admit(.addTarget(target), session: "s", caller: alice, maxTargets: 3)
        do {
            _ = try registry.admit(.addTarget(target), session: "s", caller: alice, maxTargets: 3)
            Issue.record("a fourth target was admitted")
        } catch {
            #expect(error.code == .resourceExhausted)
        }
        _ = try registry.admit(.removeTarget(1), session: "s", caller: alice, maxTargets: 3)
        #expect(throws: HearthError.self) {
            try registry.admit(.removeTarget(1), session: "s", caller: alice, maxTargets: 3)
        }
        registry.release(TargetKey(session: "s", target: 2))
        _ = try registry.admit(.addTarget(explicit), session: "s", caller: alice, maxTargets: 3)
    }
}
