import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import Synchronization
import Testing

@Suite struct CommitTests {
    @Test func committedDocumentsReadBackWithTheirTimes() async throws {
        let temporary = try TemporaryStore()
        let result = try await temporary.store.commitOrThrow([
            set("c/a", ["n": .integer(1)]), set("c/b", ["s": .string("x")]),
        ])
        #expect(result.writeResults.count == 2)
        #expect(result.writeResults.allSatisfy { $0.updateTime == result.commitTime })
        let stored = try #require(try temporary.store.document(at: path("c/a")))
        #expect(try stored.fields() == ["n": .integer(1)])
        #expect(stored.createTime == result.commitTime)
    }

    @Test func aFailedPreconditionRollsBackTheWholeCommitButNotItsNeighbours() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("c/existing", ["v": .integer(0)])])
        // Many commits at once so the writer folds them into shared transactions.
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    var writes = [set("c/doc\(index)", ["v": .integer(Int64(index))])]
                    if index % 2 == 0 {
                        writes.append(
                            Write(
                                path: path("c/existing"), operation: .update(fields: [:], mask: nil),
                                precondition: .exists(false)))
                    }
                    let result = await store.commit(writes)
                    return (index, (try? result.get()) != nil)
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        for index in 0..<64 {
            #expect(outcomes[index] == (index % 2 == 1), "commit \(index)")
            let stored = try store.document(at: path("c/doc\(index)"))
            #expect((stored != nil) == (index % 2 == 1), "doc\(index) half-written or lost")
        }
        #expect(try store.document(at: path("c/existing"))?.fields() == ["v": .integer(0)])
    }

    @Test func commitTimesStrictlyIncrease() async throws {
        let temporary = try TemporaryStore()
        var last = Timestamp(seconds: 0, nanos: 0)
        for index in 0..<50 {
            let time = try await temporary.store.commitOrThrow([set("c/d\(index % 3)", ["i": .integer(Int64(index))])])
                .commitTime
            #expect(time > last)
            last = time
        }
    }

    @Test func theChangeLogRecordsBeforeAndAfterInCommitOrder() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
        try await store.commitOrThrow([set("c/a", ["v": .integer(2)])])
        try await store.commitOrThrow([Write(path: path("c/a"), operation: .delete)])
        try await store.commitOrThrow([Write(path: path("c/missing"), operation: .delete)])  // no change, no record
        let changes = try store.changes(after: 0, limit: 10)
        #expect(changes.count == 3)
        #expect(changes.map(\.sequence) == changes.map(\.sequence).sorted())
        #expect(changes[0].before == nil)
        #expect(try changes[0].after?.fields() == ["v": .integer(1)])
        #expect(try changes[1].before?.fields() == ["v": .integer(1)])
        #expect(try changes[1].after?.fields() == ["v": .integer(2)])
        #expect(changes[2].after == nil)
        #expect(try store.changes(after: changes[1].sequence, limit: 10).map(\.sequence) == [changes[2].sequence])
    }

    @Test func dataSurvivesReopening() async throws {
        let temporary = try TemporaryStore()
        try await temporary.store.commitOrThrow([set("c/a", ["v": .string("kept")])])
        try temporary.reopen()
        #expect(try temporary.store.document(at: path("c/a"))?.fields() == ["v": .string("kept")])
    }

    @Test func wipeRemovesEverythingAndLogsEachDeletion() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("a/1", [:]), set("a/1/sub/2", [:]), set("b/3", ["x": .null])])
        let count = try await withCheckedThrowingContinuation { continuation in
            store.deleteAllDocuments { continuation.resume(with: $0) }
        }
        #expect(count == 3)
        #expect(try store.document(at: path("a/1")) == nil)
        #expect(try store.collectionIDs(under: .root, after: nil, limit: 10).isEmpty)
        #expect(try store.changes(after: 0, limit: 100).filter { $0.after == nil }.count == 3)
    }

    @Test func statisticsCountCommitsAndBytes() async throws {
        let temporary = try TemporaryStore()
        try await temporary.store.commitOrThrow([set("c/a", [:]), set("c/b", [:])])
        let statistics = temporary.store.statistics()
        #expect(statistics.commits == 1)
        #expect(statistics.writes == 2)
        #expect(statistics.databaseBytes > 0)
    }

    @Test func theFeedPublishesCommittedChangesInOrderAndNeverFailedOnes() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let received = Mutex<[ChangeRecord]>([])
        let subscription = store.changeFeed.subscribe { records in received.withLock { $0 += records } }
        defer { subscription.cancel() }
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)]), set("c/b", ["v": .integer(2)])])
        let failing = await store.commit([
            set("c/x", ["v": .integer(3)]),
            Write(path: path("c/a"), operation: .update(fields: [:], mask: nil), precondition: .exists(false)),
        ])
        #expect((try? failing.get()) == nil)
        try await store.commitOrThrow([Write(path: path("c/a"), operation: .delete)])
        let records = received.withLock { $0 }
        #expect(records.map(\.path.description) == ["c/a", "c/b", "c/a"])
        #expect(records.map(\.sequence) == records.map(\.sequence).sorted())
        #expect(records.last?.after == nil)
        #expect(try store.changes(after: 0, limit: 10).map(\.sequence) == records.map(\.sequence))
    }
}
