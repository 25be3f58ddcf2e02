import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import HearthStorePostgres
import Testing

/// Several nodes on one database: each node's feeds deliver every node's commits, in commit order, each once.
@Suite("PostgreSQL feeds across nodes", TestCluster.requirement)
struct PostgresFeedTests {
    /// Waits (up to a generous bound, so a slow machine only makes it slower) until `done` holds.
    private func eventually(_ done: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(30)
        while !done(), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test func everyNodesDocumentFeedSeesEveryCommitInLogOrderOnce() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let stores = [nodes.first, nodes.second]
        let seen = stores.map { _ in TreeLocked<[ChangeRecord]>([]) }
        let subscriptions = zip(stores, seen).map { store, box in
            store.changeFeed.subscribe { records in box.withLock { $0 += records } }
        }
        defer { for subscription in subscriptions { subscription.cancel() } }
        // Commits of one to three documents on both nodes at once, so commits of different lengths interleave.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let store = stores[index % 2]
                group.addTask {
                    let writes = (0...(index % 3)).map { set("c/d\(index)-\($0)", ["i": .integer(Int64(index))]) }
                    try await store.commitOrThrow(writes)
                }
            }
            try await group.waitForAll()
        }
        let log = try nodes.second.changes(after: 0, limit: 1000)
        let written = (0..<40).map { $0 % 3 + 1 }.reduce(0, +)
        #expect(log.count == written)
        try await eventually { seen.allSatisfy { $0.value.count >= log.count } }
        for box in seen {
            #expect(box.value.map(\.sequence) == log.map(\.sequence))
            #expect(box.value == log)
        }
    }

    @Test func everyNodesTreeFeedSeesEveryTreeWriteInLogOrderOnce() async throws {
        // Some writes sleep in PostgreSQL after taking their numbers, for different lengths, so writes numbered after
        // them commit first, on either node.
        let nodes = try TwoNodes { configuration in
            configuration.pauseAfterTreeNumbering = { sequences in
                sequences[0] % 3 == 0 ? 0.03 * Double(1 + sequences[0] % 4) : 0
            }
        }
        defer { nodes.close() }
        let trees = [try PostgresTreeStore(store: nodes.first), try PostgresTreeStore(store: nodes.second)]
        let seen = trees.map { _ in TreeLocked<[TreeChange]>([]) }
        let subscriptions = zip(trees, seen).map { tree, box in
            tree.treeFeed.subscribe { changes in box.withLock { $0 += changes } }
        }
        defer { for subscription in subscriptions { subscription.cancel() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let tree = trees[index % 2]
                group.addTask {
                    // Writes of one to three locations, of different sizes, in disjoint subtrees.
                    switch index % 3 {
                    case 0: try await tree.put("/n/\(index)", "{\"i\":\(index)}")
                    case 1: try await tree.patch("/n", "{\"\(index)/a\":1,\"\(index)/b\":2}")
                    default:
                        let leaves = (0..<50).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
                        try await tree.patch("/m", "{\"\(index)\":{\(leaves)},\"x\(index)\":1,\"y\(index)\":2}")
                    }
                }
            }
            try await group.waitForAll()
        }
        let log = try trees[0].treeChanges(after: 0, limit: 1000)
        #expect(log.count == 40)
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        #expect(try trees[1].treeChanges(after: 0, limit: 1000) == log)
        // No write lost another's: every one of them is in the tree.
        for index in 0..<40 {
            let (location, value): (String, JSONValue) =
                switch index % 3 {
                case 0: ("/n/\(index)/i", .integer(Int64(index)))
                case 1: ("/n/\(index)/b", .integer(2))
                default: ("/m/\(index)/k49", .integer(49))
                }
            #expect(try trees[index % 2].value(location) == value, "\(location)")
        }
        try await eventually { seen.allSatisfy { $0.value.count >= log.count } }
        for box in seen {
            #expect(box.value.map(\.sequence) == log.map(\.sequence))
            #expect(box.value == log)
        }
    }

    @Test func aNodeStartedLaterDeliversOnlyWhatCommitsAfterItStarted() async throws {
        let info = try TestCluster.freshDatabase()
        let early = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { early.close() }
        try await early.commitOrThrow([set("c/before", ["v": .integer(1)])])
        let late = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { late.close() }
        let seen = TreeLocked<[ChangeRecord]>([])
        let subscription = late.changeFeed.subscribe { records in seen.withLock { $0 += records } }
        defer { subscription.cancel() }
        try await early.commitOrThrow([set("c/after", ["v": .integer(2)])])
        try await eventually { !seen.value.isEmpty }
        // The history stays in the log, for listeners resuming from a token; the feed carries only what is new.
        #expect(seen.value.map(\.path) == [path("c/after")])
        #expect(try late.changes(after: 0, limit: 10).map(\.path) == [path("c/before"), path("c/after")])
    }

    @Test func anotherNodesCommitArrivesByItsAnnouncementWithoutWaitingForAPoll() async throws {
        var configuration = PostgresDocumentStore.Configuration(conninfo: try TestCluster.freshDatabase())
        // No poll within the test: only the NOTIFY after each commit can bring the other node's changes.
        configuration.feedPollInterval = .seconds(3600)
        let writer = try PostgresDocumentStore(configuration: configuration)
        let listener = try PostgresDocumentStore(configuration: configuration)
        defer {
            writer.close()
            listener.close()
        }
        let listenerTree = try PostgresTreeStore(store: listener)
        let seen = TreeLocked<[ChangeRecord]>([])
        let seenTree = TreeLocked<[TreeChange]>([])
        let subscription = listener.changeFeed.subscribe { records in seen.withLock { $0 += records } }
        let treeSubscription = listenerTree.treeFeed.subscribe { changes in seenTree.withLock { $0 += changes } }
        defer {
            subscription.cancel()
            treeSubscription.cancel()
        }
        // The listener's LISTEN connection may still be opening: commit until one announcement is heard.
        var round = 0
        while seen.value.isEmpty, round < 300 {
            try await writer.commitOrThrow([set("c/d\(round)", ["n": .integer(Int64(round))])])
            try await Task.sleep(for: .milliseconds(100))
            round += 1
        }
        try await eventually { seen.value.count == round }
        #expect(seen.value == (try writer.changes(after: 0, limit: 1000)))
        try await (try PostgresTreeStore(store: writer)).put("/t", "1")
        try await eventually { !seenTree.value.isEmpty }
        #expect(seenTree.value.map(\.path) == [treePath("/t")])
    }

    @Test func closingAnEngineClosesEveryConnectionItOpenedFeedsIncluded() async throws {
        let info = try TestCluster.freshDatabase()
        let observer = try PostgresConnection(conninfo: info)
        func backends() throws -> Int64 {
            try observer.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")[0].int(0)
                ?? 0
        }
        let baseline = try backends()
        let store = try PostgresDocumentStore(configuration: .init(conninfo: info))
        try await store.commitOrThrow([set("c/d", ["v": .integer(1)])])
        try await (try PostgresTreeStore(store: store)).put("/t", "1")
        #expect(try backends() > baseline)
        store.close()
        try await eventually { (try? backends()) == baseline }
        #expect(try backends() == baseline)
    }
}
