extension SQLiteMigrator {
    /// Brings one component's tables up to date, recording its version in `hearth_migrations(component, version)`.
    ///
    /// Several components share one database file (documents, accounts, …) while only one of them can own
    /// `PRAGMA user_version`; this form lets each keep its own version line without touching the others. Same
    /// guarantees as `migrate(_:migrations:)`: each step runs in its own `IMMEDIATE` transaction together with the
    /// version bump, and the version is re-read inside it, so concurrent migrators never apply a step twice.
    public static func migrate(
        _ db: SQLiteConnection, component: String, migrations: [(version: Int, sql: String)]
    ) throws {
        let ordered = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.version == next.version {
            throw SQLiteError.misuse("duplicate migration version \(next.version) for component \(component)")
        }
        try db.transaction(.immediate) {
            try db.execute(
                "CREATE TABLE IF NOT EXISTS hearth_migrations(component TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        }
        for migration in ordered {
            precondition(migration.version > 0, "migration versions start at 1; 0 is a component without tables")
            try db.transaction(.immediate) {
                guard try version(db, component: component) < migration.version else { return }
                try db.execute(migration.sql)
                try db.execute(
                    """
                    INSERT INTO hearth_migrations(component, version) VALUES (\(component), \(migration.version))
                    ON CONFLICT(component) DO UPDATE SET version = excluded.version
                    """)
            }
        }
    }

    /// The version `migrate(_:component:migrations:)` recorded for `component`; 0 when it never ran.
    public static func version(_ db: SQLiteConnection, component: String) throws -> Int {
        let table = try db.fetchOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hearth_migrations'")
        guard table != nil else { return 0 }
        return try db.fetchOne("SELECT version FROM hearth_migrations WHERE component = \(component)")?.int(0) ?? 0
    }
}
