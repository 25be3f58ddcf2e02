import Foundation
import HearthCore
import HearthSQLite
import HearthStore
import HearthStoreConformance
import Testing

@testable import HearthStoreSQLite

@Suite("Tree engine")
struct TreeStoreTests {
    @Test(arguments: TreeStoreConformance.checks)
    func conformsToTheTreeStoreSuite(_ check: TreeConformanceCheck) async throws {
        try await check.run { body in
            let t = try TemporaryTree()
            try await body(t.tree)
        }
    }

    @Test("the change log and the tree are read back the same after reopening the file")
    func changeLogAfterReopening() async throws {
        let t = try TemporaryTree()
        let start = try t.tree.read("ns", at: .root, auth: nil).sequence
        try await t.tree.put("/l/a", "1")
        try await t.tree.patch("/l", #"{"b":{"c":[1,2]},"a":null}"#)
        try await t.tree.put("/l", #"{".priority":3,"x":{".value":"v",".priority":"p"}}"#)
        let logged = try t.tree.treeChanges(after: start, limit: 10)
        #expect(logged.count == 3)
        try t.temporary.reopen()
        let reopened = SQLiteTreeStore(store: t.temporary.store)
        #expect(try reopened.treeChanges(after: start, limit: 10) == logged)
        #expect(try reopened.value("/l", .export) == json(#"{".priority":3,"x":{".value":"v",".priority":"p"}}"#))
    }

    @Test("subtree reads, PUTs and emptiness checks are key-range searches on the primary key, never scans")
    func rangeAccess() throws {
        let t = try TemporaryTree()
        let key = TreeKeyCodec.key("ns", treePath("/a/b"))
        let end = TreeKeyCodec.subtreeEnd(key)
        let plans = try t.temporary.store.withReader { db -> [String] in
            let queries: [SQLQuery] = [
                "EXPLAIN QUERY PLAN SELECT key, value FROM tree_nodes WHERE key >= \(key) AND key < \(end) ORDER BY key",
                "EXPLAIN QUERY PLAN DELETE FROM tree_nodes WHERE key >= \(key) AND key < \(end)",
                "EXPLAIN QUERY PLAN SELECT key FROM tree_nodes WHERE key > \(key) AND key < \(end) ORDER BY key LIMIT 1",
            ]
            return try queries.map { query in try db.fetchAll(query).map { $0.string(3) ?? "" }.joined(separator: "; ")
            }
        }
        for plan in plans {
            #expect(plan.contains("SEARCH tree_nodes USING PRIMARY KEY (key>? AND key<?)"), "\(plan)")
        }
    }
}
