import Foundation
import HearthCore
import HearthSQLite
import HearthStore
import HearthStoreConformance
import Synchronization
import Testing

@testable import HearthStoreSQLite

/// One `SQLiteDatabase`, one writer: document commits, tree writes and account writes are jobs on the same writer,
/// which counts them, publishes each feed after `COMMIT`, and rolls back only the job that failed.
@Suite("One writer per database")
struct SharedWriterTests {
    private struct Refused: Error, Equatable {}

    @Test("an account write returns its value, and one that throws rolls back alone with its error unchanged")
    func accountWrites() async throws {
        let temporary = try TemporaryStore()
        let database = temporary.store.database
        try database.migrate(
            component: "test", migrations: [(1, "CREATE TABLE accounts_probe(id TEXT PRIMARY KEY)")])
        let rowID = try database.writeAndWait { db -> Int64 in
            try db.execute("INSERT INTO accounts_probe(id) VALUES ('kept')")
            return db.lastInsertRowID
        }
        #expect(rowID == 1)
        #expect(throws: Refused.self) {
            try database.writeAndWait { db -> Int in
                try db.execute("INSERT INTO accounts_probe(id) VALUES ('dropped')")
                throw Refused()
            }
        }
        let ids = try database.readConnection { db in
            try db.fetchAll("SELECT id FROM accounts_probe ORDER BY id").map { $0.string(0) ?? "" }
        }
        #expect(ids == ["kept"])
        // Account writes are not document commits: the counters stay as they were.
        #expect(temporary.store.statistics().commits == 0)
        try await temporary.store.commitOrThrow([set("c/d", ["n": .integer(1)])])
        #expect(temporary.store.statistics().commits == 1)
    }

    @Test("a tree write is counted as a commit and its change reaches the database's tree feed before its answer")
    func treeWritesShareTheWriter() async throws {
        let t = try TemporaryTree()
        let published = Mutex<[TreeChange]>([])
        let subscription = t.temporary.store.database.treeFeed.subscribe { changes in
            published.withLock { $0.append(contentsOf: changes) }
        }
        defer { subscription.cancel() }
        let outcome = try await t.tree.put("/a", #""x""#)
        guard case .committed(let change) = outcome else {
            Issue.record("not committed: \(outcome)")
            return
        }
        #expect(published.withLock { $0 } == [change])
        #expect(t.temporary.store.statistics().commits == 1)
        #expect(t.temporary.store.statistics().writes == 1)
    }
}
