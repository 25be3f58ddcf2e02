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
        (
            21,
            [
                // What collection-group scans and composite entries need of a document: its collection ID and its
                // name in IndexKey encoding. Rows written before are filled in at start (PostgresIndexBackfill),
                // which needs Swift's encoding, so the columns allow NULL until then.
                #"ALTER TABLE documents ADD COLUMN collection_id text COLLATE "C""#,
                "ALTER TABLE documents ADD COLUMN name_key bytea",
                "CREATE INDEX documents_by_group ON documents(collection_id, name_key)",
                // Automatic single-field index entries (IndexEntry), collection scope, written in each commit's
                // transaction. bytea compares as memcmp, then shorter first, exactly as SQLite compares BLOBs, and
                // "C" text compares bytes: scans return SQLite's order.
                """
                CREATE TABLE index_entries(
                    collection text COLLATE "C" NOT NULL,
                    field text COLLATE "C" NOT NULL,
                    kind int4 NOT NULL,                     -- 0 value, 1 array element
                    key bytea NOT NULL,                     -- IndexKey encoding
                    id text COLLATE "C" NOT NULL,
                    PRIMARY KEY (collection, field, kind, key, id)
                )
                """,
            ]
        ),
        (
            22,
            [
                // Declared composite indexes and their entries, as SQLite's migration 2: `state` is 'building'
                // until a build has covered the documents written before the index was declared.
                """
                CREATE TABLE composite_indexes(
                    id int8 GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    definition text NOT NULL UNIQUE,
                    state text NOT NULL
                )
                """,
                // scope: the collection path (collection scope) or the collection ID (collection-group scope).
                """
                CREATE TABLE composite_entries(
                    index_id int8 NOT NULL,
                    scope text COLLATE "C" NOT NULL,
                    key bytea NOT NULL,
                    name_key bytea NOT NULL,
                    path text NOT NULL,
                    PRIMARY KEY (index_id, scope, key, name_key)
                )
                """,
            ]
        ),
        (
            23,
            [
                // Bumped by every change to composite_indexes (an index declared, dropped, or built), under the
                // commit_clock row lock: a node's commit, holding that lock, compares it with the version its catalog
                // was read at and rereads composite_indexes when another node changed them, so every node maintains
                // every index's entries (PostgresIndexCatalog).
                """
                CREATE TABLE index_catalog_version(
                    id int4 PRIMARY KEY CHECK (id = 1),
                    version int8 NOT NULL
                )
                """,
                "INSERT INTO index_catalog_version VALUES (1, 0)",
            ]
        ),
        (
            26,
            [
                // Open Firestore transactions, shared by every node so that any node can read in, commit or roll
                // back a transaction another began (PostgresTransactionLedger). Times are microseconds since the
                // epoch; `snapshot` is a read-only transaction's exported snapshot.
                """
                CREATE TABLE transactions(
                    id bytea PRIMARY KEY,
                    read_only bool NOT NULL,
                    snapshot text,
                    caller text,
                    created int8 NOT NULL,
                    last_used int8 NOT NULL
                )
                """,
                "CREATE INDEX transactions_caller ON transactions(caller)",
                "CREATE INDEX transactions_last_used ON transactions(last_used)",
                // A read-write transaction's read set: each document read with its update time then (NULL: missing),
                // the first read of a path kept.
                """
                CREATE TABLE transaction_reads(
                    transaction bytea NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
                    path text COLLATE "C" NOT NULL,
                    update_time int8,
                    PRIMARY KEY (transaction, path)
                )
                """,
                // Each query it ran (StructuredQuery protobuf under `parent`), with the documents it returned.
                """
                CREATE TABLE transaction_queries(
                    transaction bytea NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
                    ordinal int8 GENERATED ALWAYS AS IDENTITY,
                    parent text NOT NULL,
                    query bytea NOT NULL,
                    PRIMARY KEY (transaction, ordinal)
                )
                """,
                """
                CREATE TABLE transaction_query_results(
                    transaction bytea NOT NULL,
                    ordinal int8 NOT NULL,
                    path text NOT NULL,
                    update_time int8 NOT NULL,
                    FOREIGN KEY (transaction, ordinal) REFERENCES transaction_queries ON DELETE CASCADE
                )
                """,
                "CREATE INDEX transaction_query_results_query ON transaction_query_results(transaction, ordinal)",
            ]
        ),
        (
            30,
            [
                // Identity Toolkit accounts (PostgresAccountRows), as hearth.sqlite's auth tables: times in Unix
                // milliseconds, refresh tokens and one-time codes only as their SHA-256.
                """
                CREATE TABLE auth_users(
                    uid text PRIMARY KEY,
                    email text UNIQUE,
                    email_verified bool NOT NULL DEFAULT false,
                    password_hash text,
                    password_updated_at int8,
                    display_name text,
                    photo_url text,
                    phone_number text UNIQUE,
                    disabled bool NOT NULL DEFAULT false,
                    custom_claims text,
                    valid_since int8 NOT NULL,
                    created_at int8 NOT NULL,
                    last_login_at int8,
                    last_refresh_at int8,
                    custom_auth bool NOT NULL DEFAULT false,
                    shared_email text
                )
                """,
                "CREATE INDEX auth_users_shared_email ON auth_users(shared_email)",
                """
                CREATE TABLE auth_refresh_tokens(
                    token_hash bytea PRIMARY KEY,
                    uid text NOT NULL REFERENCES auth_users(uid) ON DELETE CASCADE,
                    provider text NOT NULL,
                    extra_claims text,
                    created_at int8 NOT NULL,
                    last_used_at int8
                )
                """,
                "CREATE INDEX auth_refresh_tokens_uid ON auth_refresh_tokens(uid)",
                """
                CREATE TABLE auth_oob_codes(
                    code_hash bytea PRIMARY KEY,
                    uid text NOT NULL REFERENCES auth_users(uid) ON DELETE CASCADE,
                    request_type text NOT NULL,
                    email text NOT NULL,
                    new_email text,
                    created_at int8 NOT NULL,
                    expires_at int8 NOT NULL
                )
                """,
                "CREATE INDEX auth_oob_codes_uid ON auth_oob_codes(uid)",
                "CREATE INDEX auth_oob_codes_expiry ON auth_oob_codes(expires_at)",
                """
                CREATE TABLE auth_provider_links(
                    provider_id text NOT NULL,
                    raw_id text NOT NULL,
                    uid text NOT NULL REFERENCES auth_users(uid) ON DELETE CASCADE,
                    email text,
                    display_name text,
                    photo_url text,
                    linked_at int8 NOT NULL,
                    PRIMARY KEY(provider_id, raw_id)
                )
                """,
                "CREATE UNIQUE INDEX auth_provider_links_uid ON auth_provider_links(uid, provider_id)",
            ]
        ),
        (
            31,
            [
                // The keys that sign ID tokens (PostgresSigningKeys), shared by every node: the private key in PEM,
                // times in Unix seconds.
                """
                CREATE TABLE auth_signing_keys(
                    kid text PRIMARY KEY,
                    pem text NOT NULL,
                    created_at int8 NOT NULL,
                    retired_at int8
                )
                """
            ]
        ),
        (
            32,
            [
                // The rate limits' token buckets (PostgresRateLimits), shared by every node; times in Unix seconds.
                """
                CREATE TABLE auth_rate_buckets(
                    scope text NOT NULL,
                    key text NOT NULL,
                    tokens float8 NOT NULL,
                    updated float8 NOT NULL,
                    PRIMARY KEY(scope, key)
                )
                """,
                "CREATE INDEX auth_rate_buckets_updated ON auth_rate_buckets(scope, updated)",
            ]
        ),
        (
            33,
            [
                // Index keys are stored cut to their first 1,500 bytes (PostgresIndexRows.keyCap), so a document
                // of up to 1 MiB commits; entries stored whole before (up to PostgreSQL's B-tree limit) are cut the
                // same way, two that become one kept once, so commits remove what they wrote.
                """
                INSERT INTO index_entries(collection, field, kind, key, id)
                SELECT collection, field, kind, substring(key FROM 1 FOR 1500), id FROM index_entries
                WHERE octet_length(key) > 1500
                ON CONFLICT DO NOTHING
                """,
                "DELETE FROM index_entries WHERE octet_length(key) > 1500",
                """
                INSERT INTO composite_entries(index_id, scope, key, name_key, path)
                SELECT index_id, scope, substring(key FROM 1 FOR 1500), name_key, path FROM composite_entries
                WHERE octet_length(key) > 1500
                ON CONFLICT DO NOTHING
                """,
                "DELETE FROM composite_entries WHERE octet_length(key) > 1500",
            ]
        ),
        (
            34,
            [
                // Development mode's learned composite indexes, as SQLite's `learned_indexes`: each definition a
                // query needed, when it was first learned (microseconds since the epoch), so a node restarted in
                // development mode declares them again and `hearth indexes` can print them.
                """
                CREATE TABLE learned_indexes(
                    definition text PRIMARY KEY,
                    learned int8 NOT NULL
                )
                """
            ]
        ),
        (
            40,
            [
                // The document change log's numbers (PostgresCommitOrder), taken last in each commit instead of under
                // the commit_clock row lock, so commits no longer wait on each other; it goes on from the last number
                // the clock row handed out. CACHE 1: every number taken is in the sequence's row at once, where
                // readers look for the last one.
                "CREATE SEQUENCE change_sequence AS int8 MINVALUE 0 START WITH 1 CACHE 1",
                "SELECT setval('change_sequence', last_sequence + 1, false) FROM commit_clock WHERE id = 1",
            ]
        ),
        (
            41,
            [
                // Rules deployed at run time (PostgresRulesStorage), shared by every node: one source per kind
                // ('firestore', 'firestore-database', 'storage', 'tree') and ID (a named database or a namespace; ''
                // for the project's). `version` is handed out under an advisory lock, so it grows in commit order and
                // a node that saw version n has seen every deploy up to n.
                """
                CREATE TABLE deployed_rules(
                    kind text NOT NULL,
                    id text NOT NULL,
                    source text NOT NULL,
                    version int8 NOT NULL,
                    deployed_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (kind, id)
                )
                """
            ]
        ),
        (
            42,
            [
                // A composite index build's progress, shared by every node (PostgresIndexCatalog.buildStep): the last
                // name key indexed (NULL: not begun), how many documents are indexed, and the first step's count.
                // Every node that knows of a building index takes steps from here, so a build a node began goes on
                // when that node is gone, and every node reports the same progress.
                "ALTER TABLE composite_indexes ADD COLUMN build_cursor bytea",
                "ALTER TABLE composite_indexes ADD COLUMN indexed_documents int8 NOT NULL DEFAULT 0",
                "ALTER TABLE composite_indexes ADD COLUMN estimated_documents int8",
            ]
        ),
        (
            43,
            [
                // Files' bytes for file storage shared by every node (PostgresBlobs): each blob in chunks of at
                // most a MiB, so a file is streamed in and out and never held whole. A blob has chunk 0 even when
                // empty, so an empty blob and a missing one differ.
                """
                CREATE TABLE storage_blob_chunks(
                    blob text COLLATE "C" NOT NULL,
                    seq int4 NOT NULL,
                    data bytea NOT NULL,
                    PRIMARY KEY (blob, seq)
                )
                """,
                // Out of line and never compressed: files are mostly compressed already (images, archives), and
                // trying costs every chunk's write.
                "ALTER TABLE storage_blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
            ]
        ),
        (
            44,
            [
                // File storage's objects, shared by every node (PostgresObjects), as the storage directory's
                // `objects` table: times in Unix milliseconds, `custom` and `tokens` JSON; the bytes are the blob's
                // chunks in storage_blob_chunks, one blob per row.
                """
                CREATE TABLE storage_objects(
                    bucket text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    generation int8 NOT NULL,
                    metageneration int8 NOT NULL,
                    blob text NOT NULL,
                    size int8 NOT NULL,
                    md5 text NOT NULL,
                    crc32c text NOT NULL,
                    content_type text,
                    cache_control text,
                    content_disposition text,
                    content_encoding text,
                    content_language text,
                    custom text NOT NULL,
                    tokens text NOT NULL,
                    created_ms int8 NOT NULL,
                    updated_ms int8 NOT NULL,
                    PRIMARY KEY (bucket, name)
                )
                """
            ]
        ),
        (
            45,
            [
                // The last document commit time handed out, in microseconds (PostgresCommitOrder.stamp). A sequence,
                // not a row, so that reading and advancing it never waits for another transaction to end: it moves
                // only under the stamp lock, for as long as one statement runs.
                "CREATE SEQUENCE commit_time_sequence AS int8 MINVALUE 0 START WITH 0 CACHE 1",
                """
                SELECT setval('commit_time_sequence', greatest(
                    (SELECT last_commit_time FROM commit_clock WHERE id = 1),
                    (SELECT coalesce(max(commit_time), 0) FROM changes),
                    (SELECT coalesce(max(update_time), 0) FROM documents)))
                """,
                // A document commit's numbers and time, handed out together under the stamp lock, so that numbers
                // and commit times follow one order on every node. The numbering lock is taken first (shared, until
                // the transaction ends): readers of the final point list its holders. The stamp lock is a session
                // lock held only inside this function; the exception handler lets it go on any error.
                """
                CREATE FUNCTION hearth_commit_stamp(
                    changes int4, now_us int8, floor_us int8, OUT numbers int8[], OUT commit_time int8)
                LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_advisory_xact_lock_shared(\(PostgresCommitOrder.lockClass), \(PostgresCommitOrder.Log.documents.numberingKey));
                    PERFORM pg_advisory_lock(\(PostgresCommitOrder.lockClass), \(PostgresCommitOrder.stampKey));
                    BEGIN
                        SELECT greatest(now_us, floor_us, last_value + 1) INTO commit_time FROM commit_time_sequence;
                        PERFORM setval('commit_time_sequence', commit_time);
                        SELECT coalesce(array_agg(nextval('change_sequence')), '{}') INTO numbers
                        FROM generate_series(1, changes);
                    EXCEPTION WHEN OTHERS THEN
                        PERFORM pg_advisory_unlock(\(PostgresCommitOrder.lockClass), \(PostgresCommitOrder.stampKey));
                        RAISE;
                    END;
                    PERFORM pg_advisory_unlock(\(PostgresCommitOrder.lockClass), \(PostgresCommitOrder.stampKey));
                END
                $$
                """,
            ]
        ),
        (
            46,
            [
                // The tree change log's numbers (PostgresCommitOrder.Log.tree), taken last in each tree write instead
                // of under the commit_clock row lock, so tree writes to disjoint subtrees no longer wait on each other;
                // it goes on from the last number the clock row handed out. CACHE 1, as change_sequence.
                "CREATE SEQUENCE tree_change_sequence AS int8 MINVALUE 0 START WITH 1 CACHE 1",
                "SELECT setval('tree_change_sequence', last_tree_sequence + 1, false) FROM commit_clock WHERE id = 1",
            ]
        ),
        (
            47,
            [
                // Resumable upload sessions shared by every node (PostgresObjects+Sessions): a chunk appended on any
                // node goes to the blob's chunks in storage_blob_chunks (`chunks` of them so far) in the transaction
                // that advances `received`; finishing makes the blob the object's. Attributes as metadata JSON,
                // expiry in Unix milliseconds.
                """
                CREATE TABLE storage_upload_sessions(
                    id text COLLATE "C" PRIMARY KEY,
                    bucket text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    attributes text NOT NULL,
                    blob text COLLATE "C" NOT NULL UNIQUE,
                    received int8 NOT NULL,
                    chunks int4 NOT NULL,
                    expires_ms int8 NOT NULL
                )
                """,
                "CREATE INDEX storage_upload_sessions_expiry ON storage_upload_sessions(expires_ms)",
            ]
        ),
        (
            48,
            [
                // Requests one node relays to another (PostgresNodeRelay): `id` is the sender's node ID, a dot and its
                // counter; the target takes a row (`taken`) and writes its `answer`, which the sender reads and
                // deletes. Rows left by a sender that died are swept by age.
                """
                CREATE TABLE node_relays(
                    id text PRIMARY KEY,
                    origin_node text NOT NULL,
                    target_node text NOT NULL,
                    message bytea NOT NULL,
                    taken bool NOT NULL DEFAULT false,
                    answer bytea,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX node_relays_pending ON node_relays(target_node, created_at) WHERE NOT taken",
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
