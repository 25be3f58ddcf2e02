import Dispatch
import Foundation
import HearthSQLite
import Synchronization
import Testing

@Suite struct ConnectionPoolTests {
    /// Shared between the writer and reader threads.
    private final class Progress: Sendable {
        let committedPairs = Atomic<Int>(0)
        let writerDone = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let failures = Mutex<[String]>([])

        /// Keeps the first few: a broken snapshot guarantee would otherwise log thousands of lines.
        func fail(_ message: String) {
            failures.withLock { if $0.count < 10 { $0.append(message) } }
        }
    }

    private func runOnThread(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.start()
    }

    @Test func readersSeeCommittedSnapshotsWhileAWriterCommits() throws {
        try withTemporaryDatabase { path in
            let writer = try SQLiteConnection(path: path)
            try writer.execute("CREATE TABLE pairs(n INTEGER NOT NULL)")
            let pool = try SQLiteConnectionPool(path: path, size: 3, options: .init())
            let progress = Progress()
            let group = DispatchGroup()
            let pairCount = 300

            runOnThread(group) {
                do {
                    for n in 1...pairCount {
                        try writer.transaction(.immediate) {
                            try writer.execute("INSERT INTO pairs VALUES (\(n))")
                            try writer.execute("INSERT INTO pairs VALUES (\(n))")
                        }
                        progress.committedPairs.store(n, ordering: .sequentiallyConsistent)
                    }
                } catch {
                    progress.fail("writer: \(error)")
                }
                progress.writerDone.store(true, ordering: .sequentiallyConsistent)
            }
            for reader in 0..<3 {
                runOnThread(group) {
                    var lastSeen = 0
                    repeat {
                        let committedBefore = progress.committedPairs.load(ordering: .sequentiallyConsistent)
                        do {
                            let rows = try pool.withConnection { db in
                                try db.fetchOne("SELECT count(*) FROM pairs")?.int(0) ?? -1
                            }
                            if rows % 2 != 0 { progress.fail("reader \(reader) saw half a transaction: \(rows)") }
                            if rows / 2 < committedBefore {
                                progress.fail("reader \(reader) missed a commit: \(rows / 2) < \(committedBefore)")
                            }
                            if rows < lastSeen { progress.fail("reader \(reader) went back in time") }
                            lastSeen = rows
                            progress.reads.add(1, ordering: .relaxed)
                        } catch {
                            progress.fail("reader \(reader): \(error)")
                        }
                    } while !progress.writerDone.load(ordering: .sequentiallyConsistent)
                }
            }
            group.wait()

            #expect(progress.failures.withLock { $0 } == [])
            #expect(progress.reads.load(ordering: .relaxed) >= 3)
            let total = try pool.withConnection { db in try db.fetchOne("SELECT count(*) FROM pairs")?.int(0) }
            #expect(total == pairCount * 2)
            pool.close()
            writer.close()
        }
    }

    @Test func poolReadsADatabaseWhoseWriterHasClosed() throws {
        try withTemporaryDatabase { path in
            let writer = try SQLiteConnection(path: path)
            try writer.execute("CREATE TABLE t(x); INSERT INTO t VALUES (5);")
            writer.close()
            let pool = try SQLiteConnectionPool(path: path, size: 2, options: .init())
            #expect(try pool.withConnection { db in try db.fetchOne("SELECT x FROM t")?.int(0) } == 5)
        }
    }

    @Test func poolConnectionsAreReadOnly() throws {
        try withTemporaryDatabase { path in
            let writer = try SQLiteConnection(path: path)
            try writer.execute("CREATE TABLE t(x)")
            let pool = try SQLiteConnectionPool(path: path, size: 1, options: .init())
            let error = #expect(throws: SQLiteError.self) {
                try pool.withConnection { db in try db.execute("INSERT INTO t VALUES (\(1))") }
            }
            #expect(error?.code == 8)  // SQLITE_READONLY
        }
    }

    @Test func exhaustedPoolTimesOutWithBusy() throws {
        try withTemporaryDatabase { path in
            _ = try SQLiteConnection(path: path)
            let pool = try SQLiteConnectionPool(
                path: path, size: 1, options: .init(), acquireTimeout: .milliseconds(50))
            let error = #expect(throws: SQLiteError.self) {
                try pool.withConnection { _ in try pool.withConnection { _ in } }
            }
            #expect(error?.isBusy == true)
            // The outer connection came back, so the pool still works.
            #expect(try pool.withConnection { db in try db.fetchOne("SELECT 7")?.int(0) } == 7)
        }
    }

    @Test func closedPoolRefusesWorkAndClosesTwiceSafely() throws {
        try withTemporaryDatabase { path in
            _ = try SQLiteConnection(path: path)
            let pool = try SQLiteConnectionPool(path: path, size: 2, options: .init())
            pool.close()
            pool.close()
            let error = #expect(throws: SQLiteError.self) { try pool.withConnection { _ in } }
            #expect(error?.code == 21)
        }
    }

    @Test func missingDatabaseFailsAtPoolCreation() throws {
        try withTemporaryDatabase { path in
            #expect(throws: SQLiteError.self) { try SQLiteConnectionPool(path: path, size: 2, options: .init()) }
        }
    }

    @Test func leftoverTransactionIsRolledBackOnReturn() throws {
        try withTemporaryDatabase { path in
            _ = try SQLiteConnection(path: path)
            let pool = try SQLiteConnectionPool(path: path, size: 1, options: .init())
            try pool.withConnection { db in try db.execute("BEGIN") }
            #expect(try pool.withConnection { db in db.isInTransaction } == false)
        }
    }
}
