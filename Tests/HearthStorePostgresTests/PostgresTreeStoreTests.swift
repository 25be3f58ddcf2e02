import HearthCore
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import HearthStorePostgres
import Testing

/// The PostgreSQL tree engine against a throwaway cluster: the engine-independent tree suite SQLite runs too, then
/// what several nodes on one database must see (one log, one order, no lost update).
@Suite("PostgreSQL tree engine", TestCluster.requirement)
struct PostgresTreeStoreTests {
    @Test(arguments: TreeStoreConformance.checks)
    func conformsToTheTreeStoreSuite(_ check: TreeConformanceCheck) async throws {
        try await check.run { body in
            let store = try PostgresDocumentStore(configuration: .init(conninfo: try TestCluster.freshDatabase()))
            defer { store.close() }
            try await body(PostgresTreeStore(store: store))
        }
    }

    @Test func twoNodesOnOneDatabaseShareOneTreeAndOneLogInCommitOrder() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let trees = [PostgresTreeStore(store: nodes.first), PostgresTreeStore(store: nodes.second)]
        try await trees[0].put("/counter", "0")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                let tree = trees[index % 2]
                group.addTask { _ = try? await tree.put("/counter", #"{".sv":{"increment":1}}"#) }
            }
        }
        // Both nodes read the same tree: no increment lost between them.
        #expect(try trees[1].value("/counter") == .integer(30))
        #expect(try trees[0].value("/counter") == .integer(30))
        // One log, read the same from either node, with increasing sequences ending at the head of both.
        let log = try trees[1].treeChanges(after: 0, limit: 100)
        #expect(log.count == 31)
        #expect(log.map(\.sequence) == log.map(\.sequence).sorted())
        #expect(Set(log.map(\.sequence)).count == 31)
        #expect(try trees[0].treeChanges(after: 0, limit: 100) == log)
        #expect(try trees[0].treeHead() == log.last?.sequence)
        #expect(try trees[1].treeHead() == log.last?.sequence)
    }

    @Test func documentAndTreeCommitsOnOneDatabaseTakeIncreasingTimes() async throws {
        let store = try PostgresDocumentStore(configuration: .init(conninfo: try TestCluster.freshDatabase()))
        defer { store.close() }
        let tree = PostgresTreeStore(store: store)
        var times: [Int64] = []
        for round in 0..<5 {
            let document = try await store.commitOrThrow([set("c/d", ["n": .integer(Int64(round))])])
            times.append(document.commitTime.microseconds)
            try await tree.put("/t", #"{".sv":"timestamp"}"#)
            let stamp = try #require(try tree.value("/t").int64Value)
            // The tree's timestamp is milliseconds of the same clock: never before the document commit before it.
            #expect(stamp >= document.commitTime.microseconds / 1000)
        }
        #expect(times == times.sorted() && Set(times).count == times.count)
    }
}
