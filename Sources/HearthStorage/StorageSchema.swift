/// The metadata database's tables, applied by `SQLiteMigrator`.
enum StorageSchema {
    static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE objects (
                bucket TEXT NOT NULL,
                name TEXT NOT NULL,
                generation INTEGER NOT NULL,
                metageneration INTEGER NOT NULL,
                blob TEXT NOT NULL,
                size INTEGER NOT NULL,
                md5 TEXT NOT NULL,
                crc32c TEXT NOT NULL,
                content_type TEXT,
                cache_control TEXT,
                content_disposition TEXT,
                content_encoding TEXT,
                content_language TEXT,
                custom TEXT NOT NULL,
                tokens TEXT NOT NULL,
                created_ms INTEGER NOT NULL,
                updated_ms INTEGER NOT NULL,
                PRIMARY KEY (bucket, name)
            ) WITHOUT ROWID;
            CREATE INDEX objects_blob ON objects(blob);
            CREATE TABLE upload_sessions (
                id TEXT PRIMARY KEY,
                bucket TEXT NOT NULL,
                name TEXT NOT NULL,
                blob TEXT NOT NULL,
                received INTEGER NOT NULL,
                attributes TEXT NOT NULL,
                expires_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            """
        )
    ]
}
