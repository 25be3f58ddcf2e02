import HearthSQLite
import Testing

@Suite struct MigratorTests {
    private let migrations: [(version: Int, sql: String)] = [
        (2, "ALTER TABLE notes ADD COLUMN title TEXT NOT NULL DEFAULT ''"),
        (1, "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)"),
    ]

    @Test func appliesPendingMigrationsInOrderOnce() throws {
        try withTemporaryDatabase { path in
            let db = try SQLiteConnection(path: path)
            #expect(try db.userVersion == 0)
            try SQLiteMigrator.migrate(db, migrations: migrations)
            #expect(try db.userVersion == 2)
            try db.execute("INSERT INTO notes(body, title) VALUES (\("b"), \("t"))")

            // Re-running would fail on CREATE TABLE if version 1 were applied again.
            try SQLiteMigrator.migrate(db, migrations: migrations)
            #expect(try db.userVersion == 2)
            db.close()

            let reopened = try SQLiteConnection(path: path)
            #expect(try reopened.userVersion == 2)
            try SQLiteMigrator.migrate(
                reopened, migrations: migrations + [(3, "CREATE INDEX notes_title ON notes(title)")])
            #expect(try reopened.userVersion == 3)
        }
    }

    @Test func failedMigrationLeavesSchemaAndVersionUnchanged() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let broken = migrations + [(3, "CREATE TABLE tags(name TEXT); INSERT INTO missing VALUES (1);")]
        let error = #expect(throws: SQLiteError.self) { try SQLiteMigrator.migrate(db, migrations: broken) }
        #expect(error?.message.contains("no such table") == true)
        #expect(try db.userVersion == 2)
        #expect(try db.fetchOne("SELECT count(*) FROM sqlite_master WHERE name = 'tags'")?.int(0) == 0)
        #expect(!db.isInTransaction)
    }

    @Test func duplicateVersionsAreRejected() throws {
        let db = try SQLiteConnection(path: ":memory:")
        #expect(throws: SQLiteError.self) {
            try SQLiteMigrator.migrate(db, migrations: [(1, "CREATE TABLE a(x)"), (1, "CREATE TABLE b(x)")])
        }
        #expect(try db.userVersion == 0)
    }
}
