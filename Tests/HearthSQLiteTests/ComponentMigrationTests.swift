import HearthSQLite
import Testing

@Suite struct ComponentMigrationTests {
    @Test func componentsKeepSeparateVersionsAndLeaveUserVersionAlone() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try SQLiteMigrator.migrate(db, migrations: [(1, "CREATE TABLE docs(id TEXT)")])
        #expect(try SQLiteMigrator.version(db, component: "auth") == 0)

        let auth: [(version: Int, sql: String)] = [
            (1, "CREATE TABLE auth_users(uid TEXT PRIMARY KEY)"),
            (2, "ALTER TABLE auth_users ADD COLUMN email TEXT"),
        ]
        try SQLiteMigrator.migrate(db, component: "auth", migrations: auth)
        try SQLiteMigrator.migrate(db, component: "auth", migrations: auth)
        try SQLiteMigrator.migrate(db, component: "other", migrations: [(1, "CREATE TABLE other(x)")])
        #expect(try SQLiteMigrator.version(db, component: "auth") == 2)
        #expect(try SQLiteMigrator.version(db, component: "other") == 1)
        #expect(try db.userVersion == 1, "the documents engine owns user_version")
        try db.execute("INSERT INTO auth_users(uid, email) VALUES (\("u"), \("e"))")

        try SQLiteMigrator.migrate(
            db, component: "auth", migrations: auth + [(3, "CREATE INDEX auth_email ON auth_users(email)")])
        #expect(try SQLiteMigrator.version(db, component: "auth") == 3)
    }

    @Test func failedStepLeavesTheComponentVersion() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let steps: [(version: Int, sql: String)] = [(1, "CREATE TABLE a(x)"), (2, "INSERT INTO missing VALUES (1)")]
        #expect(throws: SQLiteError.self) { try SQLiteMigrator.migrate(db, component: "c", migrations: steps) }
        #expect(try SQLiteMigrator.version(db, component: "c") == 1)
        #expect(!db.isInTransaction)
        #expect(throws: SQLiteError.self) {
            try SQLiteMigrator.migrate(db, component: "c", migrations: [(1, "SELECT 1"), (1, "SELECT 2")])
        }
    }
}
