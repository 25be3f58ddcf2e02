import HearthSQLite
import Testing

@Suite struct TransactionTests {
    private func makeDatabase() throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t(x INTEGER UNIQUE)")
        return db
    }

    private func values(_ db: SQLiteConnection) throws -> [Int] {
        try db.fetchAll("SELECT x FROM t ORDER BY x").compactMap { $0.int(0) }
    }

    @Test(arguments: [SQLiteConnection.TransactionKind.deferred, .immediate, .exclusive])
    func commitKeepsChangesAndReturnsTheResult(kind: SQLiteConnection.TransactionKind) throws {
        let db = try makeDatabase()
        let result = try db.transaction(kind) {
            try db.execute("INSERT INTO t VALUES (\(1))")
            #expect(db.isInTransaction)
            return "done"
        }
        #expect(result == "done")
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1])
    }

    @Test func throwRollsBackAndRethrowsTheBodysError() throws {
        let db = try makeDatabase()
        #expect(throws: ExpectedFailure()) {
            try db.transaction(.immediate) {
                try db.execute("INSERT INTO t VALUES (\(1))")
                throw ExpectedFailure()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [])
        // The connection is usable afterwards.
        try db.transaction { try db.execute("INSERT INTO t VALUES (\(2))") }
        #expect(try values(db) == [2])
    }

    @Test func savepointIsolatesAFailureInsideAnOuterTransaction() throws {
        let db = try makeDatabase()
        try db.transaction(.immediate) {
            try db.execute("INSERT INTO t VALUES (\(1))")
            #expect(throws: ExpectedFailure()) {
                try db.savepoint {
                    try db.execute("INSERT INTO t VALUES (\(2))")
                    throw ExpectedFailure()
                }
            }
            // A real SQLite failure half-way through a savepoint undoes its earlier statements too.
            let error = #expect(throws: SQLiteError.self) {
                try db.savepoint("doc \"3\"") {
                    try db.execute("INSERT INTO t VALUES (\(3))")
                    try db.execute("INSERT INTO t VALUES (\(1))")
                }
            }
            #expect(error?.isConstraintViolation == true)
            let kept = try db.savepoint {
                try db.execute("INSERT INTO t VALUES (\(4))")
                return 4
            }
            #expect(kept == 4)
            #expect(db.isInTransaction)
        }
        #expect(try values(db) == [1, 4])
    }

    @Test func nestedTransactionsAreRefused() throws {
        let db = try makeDatabase()
        #expect(throws: SQLiteError.self) {
            try db.transaction { try db.transaction {} }
        }
        #expect(!db.isInTransaction)
    }
}
