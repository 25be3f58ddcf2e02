import HearthCore
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import Testing

@testable import HearthStorePostgres

/// A tree read on PostgreSQL reflects the log's final point, read before it, and also holds writes numbered above it
/// that committed first: it lists those, so a stream starting from it gets each change exactly once.
@Suite("PostgreSQL tree reads and the changes above their final point", TestCluster.requirement)
struct PostgresTreeSnapshotTests {
    @Test func aReadListsTheChangesAboveItsFinalPointThatItHolds() async throws {
        let info = try TestCluster.freshDatabase()
        let store = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { store.close() }
        let tree = try PostgresTreeStore(store: store)
        try await tree.put("/a/x", "1")
        let point = try tree.treeHead()
        // Committed after the final point was read, before the snapshot: as when a later number commits first.
        try await tree.put("/a/y", "2")
        try await tree.put("/b", "3")
        try await tree.put("/a/z", "4", ns: "other")
        let snapshot = try tree.snapshot("ns", at: treePath("a"), from: point)
        #expect(snapshot.sequence == point)
        #expect(TreeNode.json(snapshot.node, .plain) == json(#"{"x":1,"y":2}"#))
        // Every change of its namespace above the point the snapshot sees, whatever its location; none of another.
        #expect(snapshot.alsoHeld == [point + 1, point + 2])
        // A read at the head holds nothing above it.
        let read = try tree.read("ns", at: treePath("a"), auth: nil)
        #expect(read.sequence == point + 3)
        #expect(read.alsoHeld.isEmpty)
    }
}
