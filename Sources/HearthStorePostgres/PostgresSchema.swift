import HearthCore
internal import HearthPostgres

/// The versioned schema of a Hearth PostgreSQL database. Each migration runs once, in order, in its own transaction,
/// under an advisory lock so that nodes starting together migrate once; `schema_migrations` records the versions
/// applied. Never edit a shipped migration: add one.
enum PostgresSchema {
    static let migrations: [(version: Int64, statements: [String])] = [
        (
            1,
            [
                // Documents by parent collection and ID. "C" collation compares bytes, which orders IDs as
                // Firestore does.
                """
                CREATE TABLE documents(
                    collection text COLLATE "C" NOT NULL,   -- the parent collection's path, 'users/alice/posts'
                    id text COLLATE "C" NOT NULL,           -- the document ID
                    fields bytea NOT NULL,                  -- Firestore 'fields' JSON
                    create_time int8 NOT NULL,              -- microseconds since the epoch
                    update_time int8 NOT NULL,
                    PRIMARY KEY (collection, id)
                )
                """,
                // The change log: one row per changed document per commit, in commit order.
                """
                CREATE TABLE changes(
                    sequence int8 PRIMARY KEY,
                    commit_time int8 NOT NULL,
                    path text NOT NULL,
                    before_fields bytea,
                    before_create_time int8,
                    before_update_time int8,
                    after_fields bytea,
                    after_create_time int8,
                    after_update_time int8
                )
                """,
                // The one row every commit updates first: the last commit time and change sequence handed out.
                // Its row lock orders commits, so sequences are assigned in commit order and never skip one that
                // commits late (issue 22 replaces this with a feed that does not serialize commits).
                """
                CREATE TABLE commit_clock(
                    id int4 PRIMARY KEY CHECK (id = 1),
                    last_commit_time int8 NOT NULL,
                    last_sequence int8 NOT NULL
                )
                """,
                "INSERT INTO commit_clock VALUES (1, 0, 0)",
                // Write idempotency keys with the answers they gave, pruned by count.
                """
                CREATE TABLE write_receipts(
                    sequence int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    id text NOT NULL UNIQUE,
                    answer bytea NOT NULL
                )
                """,
            ]
        ),
        (
            20,
            [
                // The tree (Realtime Database data): one row per leaf and per priority, keyed by the order-preserving
                // encoding of namespace and path (TreeKeyCodec), so a subtree is one range of the primary key —
                // bytea compares bytes. `value` is the leaf with its type (PostgresTreeRows).
                "CREATE TABLE tree_nodes(key bytea PRIMARY KEY, value bytea NOT NULL)",
                // The tree's change log, written in each tree write's transaction; `data` as TreeChangeData.
                """
                CREATE TABLE tree_changes(
                    sequence int8 PRIMARY KEY,
                    commit_time int8 NOT NULL,
                    namespace text NOT NULL,
                    kind text NOT NULL,
                    path text NOT NULL,
                    data bytea NOT NULL
                )
                """,
                // Tree sequences are their own, handed out under the same clock row lock that orders every commit,
                // so tree and document commit times increase together.
                "ALTER TABLE commit_clock ADD COLUMN last_tree_sequence int8 NOT NULL DEFAULT 0",
            ]
        ),
    ]

    /// The advisory lock key migrations hold (any constant no other Hearth lock uses).
    private static let lockKey: Int64 = 0x4865_6172_7468_0001

    /// Applies the migrations `db` lacks.
    /// - Throws: `FAILED_PRECONDITION` for a database a newer Hearth has migrated past what this one knows.
    static func migrate(_ db: PostgresConnection) throws {
        try db.transaction { tx in
            try tx.query("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
            try tx.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations(
                    version int8 PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                """)
        }
        for migration in migrations {
            try db.transaction { tx in
                try tx.query("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
                let applied = try tx.query(
                    "SELECT 1 FROM schema_migrations WHERE version = $1", [.int(migration.version)])
                guard applied.count == 0 else { return }
                for statement in migration.statements { try tx.query(statement) }
                try tx.query("INSERT INTO schema_migrations(version) VALUES ($1)", [.int(migration.version)])
            }
        }
        let newest = try db.query("SELECT coalesce(max(version), 0) FROM schema_migrations")[0].int(0) ?? 0
        let known = migrations.last?.version ?? 0
        if newest > known {
            throw HearthError(
                .failedPrecondition,
                "The PostgreSQL database has schema version \(newest), newer than this Hearth's \(known): upgrade Hearth."
            )
        }
    }

    /// The schema versions applied, in order.
    static func appliedVersions(_ db: PostgresConnection) throws -> [Int64] {
        try db.query("SELECT version FROM schema_migrations ORDER BY version").rows.compactMap { try $0.int(0) }
    }
}
