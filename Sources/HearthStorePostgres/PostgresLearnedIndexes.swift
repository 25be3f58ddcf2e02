public import HearthCore
internal import HearthPostgres
public import HearthStore

/// Development mode's composite indexes on PostgreSQL, as SQLite's `LearnedIndexes`: a query that lacks one is
/// answered by a scan (see `QueryPlanner`) and the index is learned — recorded in `learned_indexes` (migration 34),
/// declared in `composite_indexes` and built in steps between commits — so the next run is index-fast.
enum PostgresLearnedIndexes {
    /// The definitions learned so far, oldest first.
    static func load(in db: PostgresConnection) throws -> [IndexDefinition] {
        try db.query("SELECT definition FROM learned_indexes ORDER BY learned, definition").rows.compactMap { row in
            try? IndexDefinition(firestoreJSON: JSONParser.parse(try row.string(0) ?? ""), at: "learned index")
        }
    }

    /// Records `definition` as learned at `time` and declares it (building unless another node declared it first),
    /// and bumps the catalog's version so each node's next commit maintains its entries. Answers the index's ID and
    /// whether it still needs a build.
    ///
    /// Unlike a drop, this needs no commit gate (``PostgresCommitOrder/lockAllCommits(in:)``): adding an index only
    /// makes entries missing, and every build step takes the gate exclusively. A commit on another node that read
    /// the catalog before this one committed holds the gate shared until its own `COMMIT`, so the first step waits
    /// for it and reads its document; a commit that enters the gate once a step has begun reads the new version and
    /// writes its entries itself. The unique definition orders two nodes learning the same index: the later one's
    /// insert waits for the earlier and then finds its row.
    static func learn(
        _ definition: IndexDefinition, at time: Timestamp, in db: PostgresConnection
    ) throws -> (id: Int64, building: Bool) {
        try db.query(
            "INSERT INTO learned_indexes(definition, learned) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [.text(definition.description), .int(time.microseconds)])
        let inserted = try db.query(
            """
            INSERT INTO composite_indexes(definition, state) VALUES ($1, 'building')
            ON CONFLICT (definition) DO NOTHING RETURNING id
            """, [.text(definition.description)])
        if inserted.count == 1 {
            try db.query("UPDATE index_catalog_version SET version = version + 1 WHERE id = 1")
            return (try inserted[0].int(0) ?? 0, true)
        }
        let existing = try db.query(
            "SELECT id, state FROM composite_indexes WHERE definition = $1", [.text(definition.description)])
        return (try existing[0].int(0) ?? 0, try existing[0].string(1) != "ready")
    }
}

extension PostgresDocumentStore {
    /// Declares an index a development-mode query needed, on the writer queue (between commits), then builds it.
    /// A failure (the server gone) leaves it unlearned until a query needs it again after a restart.
    func learn(_ definition: IndexDefinition) {
        writerQueue.async { [weak self] in
            guard let self else { return }
            let learned: (id: Int64, building: Bool)
            do {
                learned = try writer.withTransaction("BEGIN") { db in
                    try PostgresLearnedIndexes.learn(definition, at: configuration.clock.now(), in: db)
                }
                _ = try readers.withConnection(idempotent: true) { db in try refreshCatalog(in: db) }
            } catch {
                return
            }
            catalog.add(IndexCatalog.Entry(id: learned.id, definition: definition, ready: !learned.building))
            configuration.onIndexLearned?(definition)
            if learned.building { buildIndex(learned.id) }
        }
    }
}

extension PostgresDocumentStore {
    /// Every composite index a PostgreSQL database knows — the declared ones (as the last node to start declared
    /// them) and the learned ones, each once, declared first — read without migrating or starting an engine, so a
    /// running server keeps serving (`hearth indexes --store postgres://…`).
    /// - Throws: `UNAVAILABLE` when the server cannot be reached; `NOT_FOUND` for a database Hearth never used.
    public static func indexDefinitions(conninfo: String) throws(HearthError) -> [IndexDefinition] {
        do {
            let db = try PostgresConnection(conninfo: conninfo)
            defer { db.close() }
            let tables = try db.query(
                "SELECT to_regclass('composite_indexes') IS NOT NULL, to_regclass('learned_indexes') IS NOT NULL")
            guard try tables[0].bool(0) == true else {
                throw HearthError.notFound("No Hearth documents in this PostgreSQL database (no composite_indexes).")
            }
            var definitions: [IndexDefinition] = []
            for row in try db.query("SELECT definition FROM composite_indexes ORDER BY id").rows {
                if let definition = try? IndexDefinition(
                    firestoreJSON: JSONParser.parse(try row.string(0) ?? ""), at: "index")
                {
                    definitions.append(definition)
                }
            }
            if try tables[0].bool(1) == true {
                for learned in try PostgresLearnedIndexes.load(in: db) where !definitions.contains(learned) {
                    definitions.append(learned)
                }
            }
            return definitions
        } catch {
            throw hearthError(error, doing: "reading the indexes")
        }
    }
}
