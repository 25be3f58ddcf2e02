import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Testing

/// The head of each change log (`DocumentChangeLog.head()`, `TreeChangeLog.treeHead()`): the last sequence a
/// committed change was given, which a listener hub starts from.
@Suite struct ChangeLogHeadTests {
    @Test func theDocumentHeadIsTheLastCommittedSequenceAndOnlyCommitsMoveIt() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        #expect(try store.head() == 0)
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)]), set("c/b", ["v": .integer(2)])])
        try await store.commitOrThrow([set("c/a", ["v": .integer(3)])])
        let last = try #require(try store.changes(after: 0, limit: 10).last)
        #expect(try store.head() == last.sequence)
        #expect(last.sequence == 3)
        // A refused commit and a delete of nothing log nothing, so the head stays.
        let refused = await store.commit([
            set("c/x", [:]),
            Write(path: path("c/a"), operation: .update(fields: [:], mask: nil), precondition: .exists(false)),
        ])
        #expect((try? refused.get()) == nil)
        try await store.commitOrThrow([Write(path: path("c/missing"), operation: .delete)])
        #expect(try store.head() == 3)
        try temporary.reopen()
        #expect(try temporary.store.head() == 3)
    }

    @Test func theHeadStaysPutWhenTheEntriesBeforeItArePruned() async throws {
        let temporary = try TemporaryStore { $0.changeLogRetention = 5 }
        let store = temporary.store
        // The writer prunes after every thousand jobs.
        let total = 1_001
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<total {
                group.addTask { (try? await store.commit([set("c/d\(index)", [:])]).get()) == nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 0)
        try await store.commitOrThrow([set("c/last", [:])])
        let kept = try store.changes(after: 0, limit: 10_000)
        #expect(kept.count < total, "nothing was pruned")
        #expect(try store.head() == Int64(total + 1))
        #expect(kept.last?.sequence == Int64(total + 1))
    }

    @Test func theTreeHeadCountsTreeChangesOnly() async throws {
        let tree = try TemporaryTree()
        #expect(try tree.tree.treeHead() == 0)
        try await tree.tree.put("a", #"{"x":1}"#)
        try await tree.tree.patch("a", #"{"y":2}"#)
        #expect(try tree.tree.treeHead() == 2)
        // Document commits have their own log and head.
        try await tree.temporary.store.commitOrThrow([set("c/a", [:])])
        #expect(try tree.tree.treeHead() == 2)
        #expect(try tree.temporary.store.head() == 1)
        // A refused write logs nothing.
        let value = try TreeWriteValue(json: json("3"), at: treePath("a/z"))
        let denied = await tree.tree.apply(
            TreeWrite(namespace: "ns", path: treePath("a/z"), operation: .put(value), judge: { _ in false }))
        #expect(try denied.get() == .denied)
        #expect(try tree.tree.treeHead() == 2)
        #expect(try tree.tree.read("ns", at: .root, auth: nil).sequence == 2)
    }
}
