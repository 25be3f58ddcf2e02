internal import HearthSQLite

/// The versioned schema of a Hearth SQLite database. Each migration runs once, in order, in its own
/// transaction; `PRAGMA user_version` records the last one applied. Never edit a shipped migration: add one.
enum Schema {
    static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE documents(
                collection TEXT NOT NULL,        -- the parent collection's path, 'users/alice/posts'
                id TEXT NOT NULL,                -- the document ID; BINARY collation orders it as Firestore does
                collection_id TEXT NOT NULL,     -- the last segment of collection, for collection-group scans
                name_key BLOB NOT NULL,          -- IndexKey.encode(segments:) of the full path
                fields BLOB NOT NULL,            -- Firestore 'fields' JSON
                create_time INTEGER NOT NULL,    -- microseconds since the epoch
                update_time INTEGER NOT NULL,
                PRIMARY KEY (collection, id)
            ) WITHOUT ROWID;
            CREATE INDEX documents_by_group ON documents(collection_id, name_key);

            -- Automatic single-field index entries (IndexEntry), collection scope, written with each document.
            CREATE TABLE index_entries(
                collection TEXT NOT NULL,
                field TEXT NOT NULL,
                kind INTEGER NOT NULL,           -- 0 value, 1 array element
                key BLOB NOT NULL,               -- IndexKey encoding: memcmp order = Firestore value order
                id TEXT NOT NULL,
                PRIMARY KEY (collection, field, kind, key, id)
            ) WITHOUT ROWID;

            -- The change log: one row per changed document per commit, in commit order. Feeds listeners.
            CREATE TABLE changes(
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                commit_time INTEGER NOT NULL,
                path TEXT NOT NULL,
                before_fields BLOB,
                before_create_time INTEGER,
                before_update_time INTEGER,
                after_fields BLOB,
                after_create_time INTEGER,
                after_update_time INTEGER
            );
            """
        ),
        (
            2,
            """
            -- Declared composite indexes (hearth.indexes.json) and their entries. `definition` is the canonical
            -- JSON of the index; `state` is 'building' until a background build has covered existing documents.
            CREATE TABLE composite_indexes(
                id INTEGER PRIMARY KEY,
                definition TEXT NOT NULL UNIQUE,
                state TEXT NOT NULL
            );
            -- scope: the collection path (collection scope) or the collection ID (collection-group scope).
            -- key: the index's field values, each in IndexKey encoding (bytes inverted for descending fields).
            CREATE TABLE composite_entries(
                index_id INTEGER NOT NULL,
                scope TEXT NOT NULL,
                key BLOB NOT NULL,
                name_key BLOB NOT NULL,
                path TEXT NOT NULL,
                PRIMARY KEY (index_id, scope, key, name_key)
            ) WITHOUT ROWID;
            """
        ),
        (
            3,
            """
            -- The tree (Realtime Database data): one row per leaf, keyed by the order-preserving encoding of
            -- namespace and path (TreeKeyCodec), so a subtree is one key range. A node's priority is a row under
            -- the pseudo-key '.priority'. value: INTEGER, REAL, TEXT, or a 1-byte BLOB for a Boolean.
            CREATE TABLE tree_nodes(
                key BLOB PRIMARY KEY,
                value NOT NULL
            ) WITHOUT ROWID;
            -- The tree's change log, written in the same transaction as each tree write (see TreeChangeTable).
            CREATE TABLE tree_changes(
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                commit_time INTEGER NOT NULL,    -- microseconds, same clock as documents' commit times
                namespace TEXT NOT NULL,
                kind TEXT NOT NULL,              -- 'put' or 'patch'
                path TEXT NOT NULL,              -- '/a/b'
                data BLOB NOT NULL               -- export-format JSON: the value, or {relative path: value}
            );
            -- Tree rules text per namespace (PUT /.settings/rules.json).
            CREATE TABLE tree_rules(
                namespace TEXT PRIMARY KEY,
                rules TEXT NOT NULL,
                update_time INTEGER NOT NULL
            ) WITHOUT ROWID;
            """
        ),
        (
            4,
            """
            -- Idempotency keys of writes sent with X-Hearth-Write-Id (WriteReceipts), each recorded in its write's own
            -- transaction with the answer it gave, so a resend gets that answer instead of a second application.
            -- Pruned by count.
            CREATE TABLE write_receipts(
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                answer BLOB NOT NULL             -- the response body as first sent
            );
            """
        ),
        (
            5,
            """
            -- Tree rules put through PUT /.settings/rules.json live in memory, per namespace, as the Firebase
            -- emulator keeps them; the table migration 3 made for them was never used.
            DROP TABLE tree_rules;
            """
        ),
        (
            6,
            """
            -- The composite indexes queries needed in development mode (`--dev` answers them without one), each
            -- learned once and then built like a declared index; `hearth indexes` prints them with the declared ones.
            CREATE TABLE learned_indexes(
                definition TEXT PRIMARY KEY,     -- IndexDefinition.description, firestore.indexes.json's shape
                learned INTEGER NOT NULL         -- microseconds since the epoch
            ) WITHOUT ROWID;
            """
        ),
        (
            7,
            """
            -- Fields that would overflow their row of `documents` live in `document_bodies`. `documents` is WITHOUT
            -- ROWID, so its rows are the keys of its B-tree, and SQLite compares an overflowing key by reading all of
            -- it: with twenty 200 KB documents a 100,000-name batchGet took 5-7 s instead of 0.3 s. Such a row keeps
            -- `fields` empty and names its body, which the writer deletes with the row or when the row stops naming it
            -- (triggers would do it, but a table with triggers halved 500-write commits). The rows written
            -- before move here when their fields pass 900 bytes (a bound on fields alone; new rows count the key too).
            ALTER TABLE documents ADD COLUMN body INTEGER;
            CREATE TABLE document_bodies(
                id INTEGER PRIMARY KEY,
                fields BLOB NOT NULL             -- Firestore 'fields' JSON
            );
            CREATE TEMP TABLE moved_bodies(id INTEGER PRIMARY KEY, collection TEXT NOT NULL, doc TEXT NOT NULL);
            INSERT INTO moved_bodies(collection, doc)
                SELECT collection, id FROM documents WHERE length(fields) > 900;
            INSERT INTO document_bodies(id, fields)
                SELECT m.id, d.fields FROM moved_bodies m JOIN documents d ON d.collection = m.collection AND d.id = m.doc;
            UPDATE documents SET fields = x'', body = m.id
                FROM moved_bodies m WHERE documents.collection = m.collection AND documents.id = m.doc;
            DROP TABLE moved_bodies;
            """
        ),
    ]
}
