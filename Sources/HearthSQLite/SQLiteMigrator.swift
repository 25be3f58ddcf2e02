/// Brings a schema up to date using `PRAGMA user_version` as the applied version.
public enum SQLiteMigrator {
    /// Applies, in ascending version order, every migration whose version is above `user_version`, each in its own
    /// `IMMEDIATE` transaction together with the version bump, so a failed migration leaves both the schema and the
    /// version as they were. The version is re-read inside each transaction, so two processes migrating at once do
    /// not apply a step twice. Statements that cannot run in a transaction (`VACUUM`, `PRAGMA journal_mode`) do not
    /// belong here.
    public static func migrate(_ db: SQLiteConnection, migrations: [(version: Int, sql: String)]) throws {
        let ordered = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.version == next.version {
            throw SQLiteError.misuse("duplicate migration version \(next.version)")
        }
        for migration in ordered {
            precondition(migration.version > 0, "migration versions start at 1; 0 is an empty database")
            try db.transaction(.immediate) {
                guard try db.userVersion < migration.version else { return }
                try db.execute(migration.sql)
                try db.setUserVersion(migration.version)
            }
        }
    }
}
