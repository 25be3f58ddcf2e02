import HearthSQLite
import Testing

@Suite struct QueryTests {
    @Test func interpolationProducesBindParameters() {
        let name = "ada"
        let age: Int? = nil
        let table = "people"
        let query: SQLQuery = """
            SELECT * FROM \(unsafeSQL: table) WHERE name = \(name) AND age IS \(age) AND id IN (\(list: [1, 2]))
            """
        #expect(query.sql == "SELECT * FROM people WHERE name = ? AND age IS ? AND id IN (?, ?)")
        #expect(query.bindings == [.text("ada"), .null, .integer(1), .integer(2)])

        let empty: SQLQuery = "SELECT 1 WHERE 1 IN (\(list: [Int]()))"
        #expect(empty.sql == "SELECT 1 WHERE 1 IN (NULL)")
        #expect(empty.bindings.isEmpty)

        let quoted: SQLQuery = "SELECT \(identifier: "we\"ird") FROM t WHERE \(fragment: "a = \(true)")"
        #expect(quoted.sql == "SELECT \"we\"\"ird\" FROM t WHERE a = ?")
        #expect(quoted.bindings == [.integer(1)])
    }

    @Test func injectedSQLStaysData() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE users(name TEXT NOT NULL)")
        let hostile = "x'); DROP TABLE users; --"
        try db.execute("INSERT INTO users(name) VALUES (\(hostile))")
        let rows = try db.fetchAll("SELECT name FROM users WHERE name = \(hostile)")
        #expect(rows.map { $0.string("name") } == [hostile])
        #expect(try db.fetchOne("SELECT count(*) FROM sqlite_master WHERE name = 'users'")?.int(0) == 1)
    }

    @Test func valuesRoundTripInEveryStorageClass() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let blob: [UInt8] = [0, 1, 0, 255, 0, 0]
        let row = try #require(
            try db.fetchOne(
                "SELECT \(blob), \([UInt8]()), \(""), \(Int64.min), \(2.5), \("héllo\u{0}wörld"), \(nil as String?)"))
        #expect(row[0] == .blob(blob))
        #expect(row[1] == .blob([]))
        #expect(row[2] == .text(""))
        #expect(row.int64(3) == .min)
        #expect(row.double(4) == 2.5)
        #expect(row.string(5) == "héllo\u{0}wörld")
        #expect(row[6] == .null)
    }

    @Test func blobsWithEmbeddedZerosRoundTripThroughATable() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, data BLOB)")
        let data = (0..<200).map { UInt8($0 % 3 == 0 ? 0 : $0 & 0xFF) }
        try db.execute("INSERT INTO docs(data) VALUES (\(data))")

        let insert = try db.prepare("INSERT INTO docs(data) VALUES (?)")
        data.withUnsafeBytes { insert.bind($0, at: 1) }
        #expect(try !insert.step())
        insert.reset()

        var seen: [[UInt8]] = []
        try db.forEachRow("SELECT data FROM docs ORDER BY id") { statement in
            statement.withBlob(at: 0) { seen.append(Array($0)) }
            #expect(statement.blob(at: 0) == data)
        }
        #expect(seen == [data, data])
        #expect(try db.fetchAll("SELECT data FROM docs").map { $0.blob("data") } == [data, data])
    }

    @Test func statementCacheReturnsTheSameResetStatement() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t(x)")
        for value in 1...3 { try db.execute("INSERT INTO t VALUES (\(value))") }

        let select = try db.prepare("SELECT x FROM t WHERE x >= ? ORDER BY x")
        select.bind(2, at: 1)
        #expect(try select.step())
        #expect(select.int64(at: 0) == 2)

        let again = try db.prepare("SELECT x FROM t WHERE x >= ? ORDER BY x")
        #expect(again === select)
        // Rewound and unbound: `x >= NULL` matches nothing.
        #expect(try !again.step())

        again.reset()
        again.bind(.integer(1), at: 1)
        #expect(try again.step())
        #expect(again.int64(at: 0) == 1)
    }

    @Test func bindingMistakesSurfaceAtStep() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let statement = try db.prepare("SELECT ?, ?")
        let countError = #expect(throws: SQLiteError.self) { try statement.run([.integer(1)]) }
        #expect(countError?.code == 25)  // SQLITE_RANGE

        statement.bind("x", at: 3)
        let indexError = #expect(throws: SQLiteError.self) { try statement.step() }
        #expect(indexError?.code == 25)
        statement.reset()
        #expect(
            try statement.rows([.integer(1), .text("a")]) == [
                SQLiteRow(columnNames: ["?", "?"], values: [.integer(1), .text("a")])
            ])
    }

    @Test(arguments: [3, 40])  // 40 text values take the copying path instead of nested borrows
    func textListsBindEveryValue(count: Int) throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t(name TEXT)")
        let names = (0..<count).map { "name-\($0)-" + String(repeating: "x", count: $0) }
        for name in names { try db.execute("INSERT INTO t VALUES (\(name))") }
        let found = try db.fetchAll("SELECT name FROM t WHERE name IN (\(list: names)) ORDER BY rowid")
        #expect(found.map { $0.string(0) } == names)
    }

    @Test func fetchOneReturnsNilWithoutRows() throws {
        let db = try SQLiteConnection(path: ":memory:")
        #expect(try db.fetchOne("SELECT 1 WHERE 0") == nil)
    }

    @Test func constraintViolationIsReportedWithoutTheBoundValue() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE accounts(email TEXT UNIQUE)")
        let secret = "secret-4242@example.com"
        try db.execute("INSERT INTO accounts VALUES (\(secret))")
        let error = try #require(throws: SQLiteError.self) {
            try db.execute("INSERT INTO accounts VALUES (\(secret))")
        }
        #expect(error.code == 19)
        #expect(error.extendedCode == 2067)
        #expect(error.isConstraintViolation)
        #expect(error.isUniqueViolation)
        #expect(!error.isBusy)
        #expect(error.description.hasPrefix("SQLite error 19: UNIQUE constraint failed"))
        #expect(!error.description.contains(secret))
        #expect(!error.debugDescription.contains(secret))
        #expect(error.debugDescription.contains("INSERT INTO accounts VALUES (?)"))
    }
}
