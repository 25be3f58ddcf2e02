import HearthSQLite
import Testing

/// A writer whose WAL frames go out in batches (`batchesWALWrites`) must look, to every other connection and after a
/// reopen, exactly like one writing frame by frame.
@Suite struct BatchedWALTests {
    private func writer(_ path: String) throws -> SQLiteConnection {
        var options = SQLiteConnection.Options()
        options.pageSize = 1024
        options.batchesWALWrites = true
        return try SQLiteConnection(path: path, options: options)
    }

    private func reader(_ path: String) throws -> SQLiteConnection {
        var options = SQLiteConnection.Options()
        options.readOnly = true
        return try SQLiteConnection(path: path, options: options)
    }

    @Test func everyCommitIsVisibleToAnotherConnectionAsSoonAsItReturns() throws {
        try withTemporaryDatabase { path in
            let db = try writer(path)
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            let other = try reader(path)
            for round in 1...200 {
                try db.transaction(.immediate) {
                    // Rows in scattered pages, so each commit writes many frames.
                    for row in 0..<5 {
                        let body = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: 300)
                        try db.execute("INSERT INTO t(id, body) VALUES (\(Int64(row * 1_000_000 + round)), \(body))")
                    }
                }
                #expect(try other.fetchOne("SELECT COUNT(*) FROM t")?.int(0) == round * 5)
            }
            #expect(try other.fetchOne("PRAGMA integrity_check")?.string(0) == "ok")
        }
    }

    @Test func aTransactionOfManyMegabytesCommitsAndSurvivesAReopen() throws {
        try withTemporaryDatabase { path in
            var db = try writer(path)
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            // 3 MiB in one commit: more than one batch, and far more than one write(2) of the unix VFS may carry.
            try db.transaction(.immediate) {
                for row in 0..<3072 {
                    try db.execute(
                        "INSERT INTO t(id, body) VALUES (\(Int64(row)), \([UInt8](repeating: 7, count: 1024)))")
                }
            }
            #expect(try reader(path).fetchOne("SELECT COUNT(*), SUM(LENGTH(body)) FROM t")?.int(1) == 3072 * 1024)
            db.close()
            db = try writer(path)
            #expect(try db.fetchOne("SELECT COUNT(*) FROM t")?.int(0) == 3072)
            #expect(try db.fetchOne("PRAGMA integrity_check")?.string(0) == "ok")
        }
    }

    @Test func aRolledBackTransactionLeavesNoTraceAndTheNextCommitLands() throws {
        try withTemporaryDatabase { path in
            let db = try writer(path)
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            try db.execute("INSERT INTO t(id, body) VALUES (1, \([UInt8](repeating: 1, count: 100)))")
            #expect(throws: ExpectedFailure.self) {
                try db.transaction(.immediate) {
                    for row in 2..<2000 {
                        try db.execute(
                            "INSERT INTO t(id, body) VALUES (\(Int64(row)), \([UInt8](repeating: 2, count: 900)))")
                    }
                    throw ExpectedFailure()
                }
            }
            try db.execute("INSERT INTO t(id, body) VALUES (3, \([UInt8](repeating: 3, count: 100)))")
            let other = try reader(path)
            #expect(try other.fetchAll("SELECT id FROM t ORDER BY id").map { $0.int(0) } == [1, 3])
            #expect(try other.fetchOne("PRAGMA integrity_check")?.string(0) == "ok")
        }
    }
}
