import Dispatch
import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import HearthStorePostgres
import Testing

/// Tree writes numbered as document commits are (PostgresCommitOrder, PostgresTreePathLocks): writes to disjoint
/// subtrees on different nodes do not wait on each other, conflicting ones lose no update, and every node's tree feed
/// delivers the one log, in sequence order, each change once, never past a number whose write has not committed.
@Suite("PostgreSQL tree write order without a global lock", TestCluster.requirement)
struct PostgresTreeOrderTests {
    /// Waits (up to a generous bound, so a slow machine only makes it slower) until `done` holds.
    private func eventually(_ done: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(60)
        while !done(), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    /// Waits for `semaphore` off the cooperative pool.
    private func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    /// Every tree's feed, recorded.
    private func record(
        _ trees: [PostgresTreeStore]
    ) -> ([TreeLocked<[TreeChange]>], [ChangeFeed<TreeChange>.Subscription]) {
        let seen = trees.map { _ in TreeLocked<[TreeChange]>([]) }
        let subscriptions = zip(trees, seen).map { tree, box in
            tree.treeFeed.subscribe { changes in box.withLock { $0 += changes } }
        }
        return (seen, subscriptions)
    }

    @Test func aTreeWriteHoldingItsNumberHoldsUpNoWriteToAnotherSubtreeAndIsDeliveredOnceItCommits() async throws {
        let info = try TestCluster.freshDatabase()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var slowConfiguration = PostgresDocumentStore.Configuration(conninfo: info)
        slowConfiguration.pauseAfterTreeNumbering = holdingFirstNumbers(held: held, release: release)
        let stores = [
            try PostgresDocumentStore(configuration: slowConfiguration),
            try PostgresDocumentStore(configuration: .init(conninfo: info)),
            try PostgresDocumentStore(configuration: .init(conninfo: info)),
        ]
        defer { for store in stores { store.close() } }
        let trees = try stores.map { try PostgresTreeStore(store: $0) }
        let (slow, fast, observer) = (trees[0], trees[1], trees[2])
        let (seen, subscriptions) = record(trees)
        defer { for subscription in subscriptions { subscription.cancel() } }

        let heldWrite = Task { try await slow.put("/a/held", "1") }
        await wait(for: held)
        // The held write has its number and its locks on /a/held and its ancestors. Writes to other subtrees — one
        // beside it under /a, one elsewhere — on the other nodes take later numbers and commit in PostgreSQL
        // meanwhile. They are answered only once they are on their node's feed, after the held write, so the test
        // looks at the table.
        let otherWrites = [
            Task { try await fast.put("/b/past", "2") },
            Task { try await observer.patch("/a", #"{"other": 3}"#) },
        ]
        let raw = try PostgresConnection(conninfo: info)
        func committed() -> Int64? { try? raw.query("SELECT count(*) FROM tree_changes")[0].int(0) }
        try await eventually { committed() == 2 }
        #expect(committed() == 2, "a write to another subtree waited for a write it does not conflict with")
        // Nothing past the held number is delivered anywhere while it may still commit.
        #expect(seen.allSatisfy { $0.value.isEmpty })
        release.signal()
        _ = try await heldWrite.value
        for write in otherWrites { _ = try await write.value }

        let log = try observer.treeChanges(after: 0, limit: 10)
        #expect(log.count == 3)
        #expect(log.first?.path == treePath("/a/held"))
        #expect(Set(log.dropFirst().map(\.path)) == [treePath("/b/past"), treePath("/a")])
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        try await eventually { seen.allSatisfy { $0.value.count >= 3 } }
        for box in seen { #expect(box.value == log) }
        #expect(try observer.value("/a") == json(#"{"held": 1, "other": 3}"#))
        #expect(try observer.treeHead() == log.last?.sequence)
    }

    @Test func conflictingWritesOnTwoNodesLoseNoUpdateAndEveryFeedIsTheLogInOrder() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let trees = [try PostgresTreeStore(store: nodes.first), try PostgresTreeStore(store: nodes.second)]
        let (seen, subscriptions) = record(trees)
        defer { for subscription in subscriptions { subscription.cancel() } }
        try await trees[0].put("/c", #"{"n": 0}"#)

        // On both nodes at once, each adding one to /c/n: 30 `.sv` increments of /c/n; 6 transactions on /c, its
        // parent (read, then compare-and-set with the ETag, again on a stale one); 6 PUTs at the root, an ancestor of
        // both, whose increment reads /c/n as the write before it left it; and 6 PATCHes of /c/n and a disjoint
        // sibling at once.
        let (increments, transactions, roots, patches) = (30, 6, 6, 6)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<increments {
                let tree = trees[index % 2]
                group.addTask { _ = try await tree.put("/c/n", #"{".sv": {"increment": 1}}"#).change }
            }
            for index in 0..<transactions {
                let tree = trees[index % 2]
                group.addTask {
                    var current = try tree.read("ns", at: treePath("/c"), auth: nil).node
                    while true {
                        let n = TreeNode.json(current, .plain)["n"]?.int64Value ?? -1_000
                        let outcome = try await tree.put(
                            "/c", #"{"n": \#(n + 1)}"#, ifMatch: TreeETag.of(current))
                        guard case .preconditionFailed(let now, _) = outcome else { break }
                        current = now
                    }
                }
            }
            for index in 0..<roots {
                let tree = trees[index % 2]
                group.addTask { _ = try await tree.put("/", #"{"c": {"n": {".sv": {"increment": 1}}}}"#).change }
            }
            for index in 0..<patches {
                let tree = trees[index % 2]
                group.addTask {
                    _ = try await tree.patch("/", #"{"c/n": {".sv": {"increment": 1}}, "d/\#(index)": true}"#).change
                }
            }
            try await group.waitForAll()
        }

        let total = Int64(increments + transactions + roots + patches)
        #expect(try trees[0].value("/c/n") == .integer(total))
        #expect(try trees[1].value("/c/n") == .integer(total))
        let log = try trees[1].treeChanges(after: 0, limit: 1000)
        #expect(try trees[0].treeChanges(after: 0, limit: 1000) == log)
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        // Replayed in log order, /c/n takes every value from 0 to the total once, in turn: every write that changed
        // it saw the one numbered before it.
        var counter: TreeNode?
        var values: [Int64] = []
        for change in log {
            let next = change.applied(to: counter, at: treePath("/c/n"))
            if next != counter, let value = TreeNode.json(next, .plain).int64Value { values.append(value) }
            counter = next
        }
        #expect(values == Array(0...total))
        try await eventually { seen.allSatisfy { $0.value.count >= log.count } }
        for box in seen {
            #expect(box.value.map(\.sequence) == log.map(\.sequence))
            #expect(box.value == log)
        }
    }

    @Test func twoNodesDeletingAnObjectsLastTwoChildrenAtOnceDropItsPriority() async throws {
        let info = try TestCluster.freshDatabase()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var slowConfiguration = PostgresDocumentStore.Configuration(conninfo: info)
        slowConfiguration.pauseAfterTreeNumbering = holdingFirstNumbers(held: held, release: release)
        let stores = [
            try PostgresDocumentStore(configuration: slowConfiguration),
            try PostgresDocumentStore(configuration: .init(conninfo: info)),
        ]
        defer { for store in stores { store.close() } }
        let (slow, other) = (try PostgresTreeStore(store: stores[0]), try PostgresTreeStore(store: stores[1]))
        try await other.put("/a", #"{"b": 1, "c": 2, ".priority": 5}"#)

        // One node deletes /a/b and is held before its COMMIT; the other deletes /a/c meanwhile. Whichever goes
        // second leaves /a empty, and /a's priority must go with it.
        let first = Task { try await slow.put("/a/b", "null") }
        await wait(for: held)
        let second = Task { try await other.put("/a/c", "null") }
        let raw = try PostgresConnection(conninfo: info)
        // Released once the second has committed or waits for a lock, whichever it does.
        try await eventually {
            let committed = try? raw.query("SELECT count(*) FROM tree_changes")[0].int(0)
            let waiting = try? raw.query("SELECT count(*) FROM pg_locks WHERE NOT granted")[0].int(0)
            return committed == 2 || (waiting ?? 0) > 0
        }
        release.signal()
        _ = try await first.value
        _ = try await second.value

        #expect(try other.value("/a", .export) == .null)
        // A child written later finds no priority left over from the object that was deleted.
        try await slow.put("/a/x", "1")
        #expect(try other.value("/a", .export) == json(#"{"x": 1}"#))
    }

    @Test func aPatchOfThousandsOfKeysHoldsTwoLocationLocksNotOneAKey() async throws {
        // PostgreSQL keeps every lock of every session in one table (6,400 by default) and fails a transaction that
        // would pass it: a fan-out PATCH taking a lock per key would fail on a default server, and hold up others.
        let info = try TestCluster.freshDatabase()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configuration.pauseAfterTreeNumbering = holdingFirstNumbers(held: held, release: release)
        let store = try PostgresDocumentStore(configuration: configuration)
        defer { store.close() }
        let tree = try PostgresTreeStore(store: store)
        let entries = (0..<1_000).map { #""u\#($0)/name": \#($0)"# }.joined(separator: ", ")
        let write = Task { try await tree.patch("/fan", "{\(entries)}") }
        await wait(for: held)
        let raw = try PostgresConnection(conninfo: info)
        let locks = try raw.query(
            """
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int4::oid
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [.int(0x4854_7265)])[0].int(0)
        release.signal()
        _ = try await write.value
        // The root's, shared, and the patched location's, exclusive.
        #expect(locks == 2)
        #expect(try tree.value("/fan/u999/name") == .integer(999))
    }
}
