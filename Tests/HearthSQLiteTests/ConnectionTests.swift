import Foundation
import HearthSQLite
import Testing

@Suite struct ConnectionTests {
    @Test func opensOnDiskInWALModeWithConfiguredPragmas() throws {
        try withTemporaryDatabase { path in
            var options = SQLiteConnection.Options()
            options.synchronous = .full
            let db = try SQLiteConnection(path: path, options: options)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(try db.fetchOne("PRAGMA journal_mode")?.string(0) == "wal")
            #expect(try db.fetchOne("PRAGMA synchronous")?.int(0) == 2)
            #expect(try db.fetchOne("PRAGMA foreign_keys")?.int(0) == 1)
            #expect(try db.fetchOne("PRAGMA cache_size")?.int(0) == -16384)
            try db.execute("CREATE TABLE t(x INTEGER)")
            try db.execute("INSERT INTO t VALUES (\(42))")
            #expect(db.changes == 1)
            #expect(db.lastInsertRowID == 1)
            db.close()

            let reopened = try SQLiteConnection(path: path)
            #expect(try reopened.fetchOne("SELECT x FROM t")?.int("x") == 42)
        }
    }

    @Test func inMemoryDatabaseOpens() throws {
        let db = try SQLiteConnection(path: ":memory:")
        #expect(try db.fetchOne("SELECT 1 + \(2) AS sum")?.int("sum") == 3)
    }

    @Test func missingFileWithoutCreateFails() throws {
        try withTemporaryDatabase { path in
            var options = SQLiteConnection.Options()
            options.create = false
            let error = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: path, options: options) }
            #expect(error?.code == 14)  // SQLITE_CANTOPEN
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func closingTwiceIsSafeAndLaterUseFails() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let statement = try db.prepare("SELECT 1")
        db.close()
        db.close()
        #expect(db.isClosed)
        let error = #expect(throws: SQLiteError.self) { try db.fetchAll("SELECT 1") }
        #expect(error?.code == 21)  // SQLITE_MISUSE
        let stepError = #expect(throws: SQLiteError.self) { try statement.step() }
        #expect(stepError?.code == 21)
        statement.bind(1, at: 1)
        #expect(throws: SQLiteError.self) { try statement.step() }
        statement.reset()
        #expect(statement.columnCount == 0)
        #expect(db.changes == 0)
    }

    @Test func scriptsRunEveryStatement() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute(
            """
            CREATE TABLE a(x); -- first
            CREATE TABLE b(y REFERENCES a(x));
            /* trailing comment */ INSERT INTO a VALUES (1);
            """)
        #expect(try db.fetchOne("SELECT count(*) FROM a")?.int(0) == 1)
        let script = "INSERT INTO a VALUES (2); INSERT INTO a VALUES (3)"
        try db.execute(script)
        #expect(try db.fetchOne("SELECT count(*) FROM a")?.int(0) == 3)
    }

    @Test func boundQueriesMustBeOneStatement() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE a(x)")
        let error = #expect(throws: SQLiteError.self) {
            try db.execute("INSERT INTO a VALUES (\(1)); DELETE FROM a")
        }
        #expect(error?.code == 21)
        #expect(throws: SQLiteError.self) { try db.prepare("SELECT 1; SELECT 2") }
        #expect(try db.fetchOne("SELECT count(*) FROM a")?.int(0) == 0)
    }

    @Test func checkpointEmptiesTheWAL() throws {
        try withTemporaryDatabase { path in
            let db = try SQLiteConnection(path: path)
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (\(1))")
            let wal = path + "-wal"
            let sizeBefore = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
            #expect(sizeBefore > 0)
            #expect(db.checkpoint(.truncate).isComplete)
            let sizeAfter = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? -1
            #expect(sizeAfter == 0)
        }
    }
}
