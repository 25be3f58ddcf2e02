import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Synchronization
import Testing

/// A wall clock the test moves by hand.
final class ManualClock: Sendable {
    private let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    var read: WallClock {
        WallClock { [self] in Timestamp(microseconds: Int64(now.withLock { $0 }.timeIntervalSince1970 * 1e6)) }
    }
}

@Suite struct TransactionTests {
    func store(clock: ManualClock) throws -> (TemporaryStore, SQLiteDocumentStore) {
        let temporary = try TemporaryStore(configure: { $0.clock = clock.read })
        return (temporary, temporary.store)
    }

    @Test func anIdleTransactionExpiresAfterSixtySeconds() async throws {
        let clock = ManualClock()
        let (temporary, store) = try store(clock: clock)
        _ = temporary
        let transaction = try store.beginTransaction(.readWrite, caller: nil)
        _ = try store.document(at: path("c/a"), transaction: transaction)
        clock.advance(59)
        _ = try store.document(at: path("c/a"), transaction: transaction)  // still alive, and the idle timer restarts
        clock.advance(59)
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])], transaction: transaction)
        let stale = try store.beginTransaction(.readWrite, caller: nil)
        clock.advance(61)
        let result = await store.commit([set("c/b", [:])], transaction: stale)
        #expect(throws: HearthError.self) { try result.get() }
        #expect(try store.document(at: path("c/b")) == nil)
    }

    @Test func aTransactionOlderThan270SecondsCannotCommit() async throws {
        let clock = ManualClock()
        let (temporary, store) = try store(clock: clock)
        _ = temporary
        let transaction = try store.beginTransaction(.readWrite, caller: nil)
        for _ in 0..<5 {
            clock.advance(55)
            _ = try store.document(at: path("c/a"), transaction: transaction)
        }
        let result = await store.commit([set("c/a", [:])], transaction: transaction)
        switch result {
        case .success: Issue.record("a 275-second-old transaction committed")
        case .failure(let error): #expect(error.code == .aborted)
        }
    }

    @Test func aConflictingWriteAbortsTheCommitAndAppliesNothing() async throws {
        let clock = ManualClock()
        let (temporary, store) = try store(clock: clock)
        _ = temporary
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
        let transaction = try store.beginTransaction(.readWrite, caller: nil)
        _ = try store.document(at: path("c/a"), transaction: transaction)
        try await store.commitOrThrow([set("c/a", ["v": .integer(2)])])
        let result = await store.commit(
            [set("c/a", ["v": .integer(3)]), set("c/other", [:])], transaction: transaction)
        #expect((try? result.get()) == nil)
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(2)])
        #expect(try store.document(at: path("c/other")) == nil)
    }

    @Test func aReadOnlyTransactionKeepsItsSnapshot() async throws {
        let clock = ManualClock()
        let (temporary, store) = try store(clock: clock)
        _ = temporary
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
        let transaction = try store.beginTransaction(.readOnly, caller: nil)
        try await store.commitOrThrow([set("c/a", ["v": .integer(2)]), set("c/b", [:])])
        #expect(try store.document(at: path("c/a"), transaction: transaction)?.fields() == ["v": .integer(1)])
        #expect(try store.document(at: path("c/b"), transaction: transaction) == nil)
        let query = StructuredQuery(parent: .root, collectionID: "c")
        #expect(try store.runQuery(query, transaction: transaction).documents.count == 1)
        #expect(try store.runQuery(query, transaction: nil).documents.count == 2)
        try store.rollback(transaction)
        #expect(throws: HearthError.self) { try store.rollback(transaction) }
    }

    @Test func oneCallerCannotTakeEveryReadOnlySlot() throws {
        let clock = ManualClock()
        let (temporary, store) = try store(clock: clock)
        _ = temporary
        var mine: [TransactionID] = []
        for _ in 0..<8 { mine.append(try store.beginTransaction(.readOnly, caller: "address 10.0.0.1")) }
        let refused = #expect(throws: HearthError.self) {
            try store.beginTransaction(.readOnly, caller: "address 10.0.0.1")
        }
        #expect(refused?.code == .resourceExhausted)
        // Another caller, and the administrator, still get theirs.
        let other = try store.beginTransaction(.readOnly, caller: "user bob")
        let admin = try store.beginTransaction(.readOnly, caller: nil)
        // A read-write transaction still fits beside the caller's eight snapshots.
        _ = try store.beginTransaction(.readWrite, caller: "address 10.0.0.1")
        // Ending one frees its slot.
        try store.rollback(mine.removeFirst())
        mine.append(try store.beginTransaction(.readOnly, caller: "address 10.0.0.1"))
        for id in mine + [other, admin] { try store.rollback(id) }
    }

    @Test func oneCallerCannotOpenTransactionsWithoutBound() throws {
        let clock = ManualClock()
        let (temporary, store) = try store(clock: clock)
        _ = temporary
        for _ in 0..<256 { _ = try store.beginTransaction(.readWrite, caller: "user eve") }
        let refused = #expect(throws: HearthError.self) { try store.beginTransaction(.readWrite, caller: "user eve") }
        #expect(refused?.code == .resourceExhausted)
        _ = try store.beginTransaction(.readWrite, caller: "user ann")
        // Idle ones expire, and with them the refusal.
        clock.advance(61)
        _ = try store.beginTransaction(.readWrite, caller: "user eve")
    }

    @Test func aReadOnlySnapshotEndsSixtySecondsAfterItBeganEvenWhileUsed() async throws {
        let clock = ManualClock()
        let (temporary, store) = try store(clock: clock)
        _ = temporary
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
        let transaction = try store.beginTransaction(.readOnly, caller: "user ann")
        for _ in 0..<5 {
            clock.advance(11)
            #expect(try store.document(at: path("c/a"), transaction: transaction)?.fields() == ["v": .integer(1)])
        }
        clock.advance(6)
        let expired = #expect(throws: HearthError.self) {
            try store.document(at: path("c/a"), transaction: transaction)
        }
        #expect(expired?.message.contains("expired") == true)
        // Its slot is free again.
        for _ in 0..<8 { _ = try store.beginTransaction(.readOnly, caller: "user ann") }
    }
}
