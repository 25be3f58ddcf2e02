import HearthCore
internal import HearthPostgres
import HearthStore

/// The PostgreSQL side of the composite index catalog (`composite_indexes`, `composite_entries`), as SQLite's
/// engine keeps it: declared definitions reconciled at start, new ones built in steps between commits, and the
/// documents written before migration 21 given their name keys and entries.
enum PostgresIndexCatalog {
    /// The advisory lock key reconciliation and the backfill hold, so nodes starting together do them once.
    private static let lockKey: Int64 = 0x4865_6172_7468_0002

    /// Makes the stored catalog match `definitions`: new ones are added as building, dropped ones deleted with
    /// their entries. Fills `catalog` and returns the IDs that need a build.
    static func reconcile(
        _ catalog: IndexCatalog, with definitions: [IndexDefinition], in db: PostgresConnection
    ) throws -> (toBuild: [Int64], version: Int64) {
        try db.transaction { tx in
            try tx.query("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
            // Ordered with every node's commits: those after this one see the new version and maintain the new
            // indexes' entries; the build covers the documents of those before.
            try lockCommits(in: tx)
            var changed = false
            var stored: [IndexCatalog.Entry] = []
            for row in try tx.query("SELECT id, definition, state FROM composite_indexes ORDER BY id").rows {
                let id = try row.int(0) ?? 0
                let text = try row.string(1) ?? ""
                let parsed = try? IndexDefinition(firestoreJSON: JSONParser.parse(text), at: "stored index")
                if let parsed, definitions.contains(parsed) {
                    stored.append(.init(id: id, definition: parsed, ready: try row.string(2) == "ready"))
                } else {
                    try tx.query("DELETE FROM composite_entries WHERE index_id = $1", [.int(id)])
                    try tx.query("DELETE FROM composite_indexes WHERE id = $1", [.int(id)])
                    changed = true
                }
            }
            var toBuild = stored.filter { !$0.ready }.map(\.id)
            for definition in definitions where !stored.contains(where: { $0.definition == definition }) {
                let inserted = try tx.query(
                    "INSERT INTO composite_indexes(definition, state) VALUES ($1, 'building') RETURNING id",
                    [.text(definition.description)])
                let entry = IndexCatalog.Entry(id: try inserted[0].int(0) ?? 0, definition: definition, ready: false)
                stored.append(entry)
                toBuild.append(entry.id)
                changed = true
            }
            if changed { try bumpVersion(in: tx) }
            // As stored, with the progress of builds other nodes began.
            catalog.replaceAll(try load(in: tx))
            return (toBuild, try version(in: tx))
        }
    }

    /// A build's progress as stored with its index.
    struct BuildProgress {
        /// Documents indexed so far, by every node that took a step.
        var completed: Int64
        /// The first step's count of the documents to index.
        var estimated: Int64?
        var ready: Bool
    }

    /// Indexes up to `limit` documents of the index's collection ID after the cursor stored with the index (where
    /// the last step, on whichever node, left it), in the caller's transaction on the writer queue, so the build
    /// interleaves with this node's commits without missing or doubling an entry. The first step also counts the
    /// documents to index. `nil` when the index is gone (dropped meanwhile).
    static func buildStep(
        _ catalog: IndexCatalog, indexID: Int64, limit: Int, in db: PostgresConnection
    ) throws -> BuildProgress? {
        guard let index = catalog.all.first(where: { $0.id == indexID }) else { return nil }
        // Ordered with every node's commits, so none changes a document between this step reading it and writing
        // its entries; the row lock below orders the steps of nodes building the same index.
        try lockCommits(in: db)
        let stored = try db.query(
            """
            SELECT state, build_cursor, indexed_documents, estimated_documents FROM composite_indexes
            WHERE id = $1 FOR UPDATE
            """, [.int(indexID)])
        guard stored.count == 1 else { return nil }
        var progress = BuildProgress(
            completed: try stored[0].int(2) ?? 0, estimated: try stored[0].int(3),
            ready: try stored[0].string(0) == "ready")
        if progress.ready { return progress }
        let cursor = try stored[0].bytes(1) ?? []
        let collectionID = index.definition.collectionID
        if progress.estimated == nil {
            progress.estimated =
                try db.query("SELECT count(*) FROM documents WHERE collection_id = $1", [.text(collectionID)])[0]
                .int(0) ?? 0
        }
        let rows = try db.query(
            """
            SELECT collection, id, fields, name_key FROM documents
            WHERE collection_id = $1 AND name_key > $2::bytea ORDER BY name_key LIMIT $3
            """, [.text(collectionID), .binary(cursor), .int(Int64(limit))], binaryResults: true)
        for row in rows.rows {
            let path = documentPath(collection: try row.string(0) ?? "", id: try row.string(1) ?? "")
            let fields = try Value.decodeStoredFields(try JSONParser.parse(try row.bytes(2) ?? []))
            try PostgresIndexRows.insertComposite(
                Array(PostgresIndexRows.storedKeys(index.definition, fields)), indexID: index.id,
                scope: index.definition.scope(of: path), nameKey: index.definition.nameKey(of: path), path: path,
                in: db)
        }
        progress.completed += Int64(rows.count)
        let next = rows.count < limit ? cursor : try rows[rows.count - 1].bytes(3) ?? cursor
        progress.ready = rows.count < limit
        try db.query(
            """
            UPDATE composite_indexes SET state = $2, build_cursor = $3::bytea, indexed_documents = $4,
                estimated_documents = $5
            WHERE id = $1
            """,
            [
                .int(indexID), .text(progress.ready ? "ready" : "building"), .binary(next), .int(progress.completed),
                progress.estimated.map { .int($0) } ?? .null,
            ])
        // The catalog in memory turns ready after the commit (the caller records the step), never before.
        if progress.ready { try bumpVersion(in: db) }
        return progress
    }

    /// Gives documents stored before migration 21 their collection ID, name key and single-field entries, `batch`
    /// at a time, each batch its own transaction. Idempotent; returns how many it filled in.
    @discardableResult
    static func backfill(in db: PostgresConnection, batch: Int = 500) throws -> Int {
        var filled = 0
        while true {
            let done = try db.transaction { tx -> Int in
                try tx.query("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
                let rows = try tx.query(
                    "SELECT collection, id, fields FROM documents WHERE name_key IS NULL ORDER BY collection, id LIMIT $1",
                    [.int(Int64(batch))], binaryResults: true)
                for row in rows.rows {
                    let collection = try row.string(0) ?? ""
                    let id = try row.string(1) ?? ""
                    let path = documentPath(collection: collection, id: id)
                    try tx.query(
                        "UPDATE documents SET collection_id = $3, name_key = $4::bytea WHERE collection = $1 AND id = $2",
                        [
                            .text(collection), .text(id), .text(path.parent.lastSegment),
                            .binary(IndexKey.encode(segments: path.segments)),
                        ])
                    let fields = try Value.decodeStoredFields(try JSONParser.parse(try row.bytes(2) ?? []))
                    try PostgresIndexRows.insert(
                        PostgresIndexRows.storedEntries(fields), collection: collection, id: id, in: tx)
                }
                return rows.count
            }
            filled += done
            if done < batch { return filled }
        }
    }

    /// The catalog's version (see migration 23).
    static func version(in db: PostgresConnection) throws -> Int64 {
        try db.query("SELECT version FROM index_catalog_version WHERE id = 1")[0].int(0) ?? 0
    }

    /// The indexes as `composite_indexes` stores them now, with their builds' progress (every node's steps).
    static func load(in db: PostgresConnection) throws -> [IndexCatalog.Entry] {
        var entries: [IndexCatalog.Entry] = []
        let rows = try db.query(
            "SELECT id, definition, state, indexed_documents, estimated_documents FROM composite_indexes ORDER BY id")
        for row in rows.rows {
            let id = try row.int(0) ?? 0
            guard
                let definition = try? IndexDefinition(
                    firestoreJSON: JSONParser.parse(try row.string(1) ?? ""), at: "stored index")
            else { continue }
            var entry = IndexCatalog.Entry(id: id, definition: definition, ready: try row.string(2) == "ready")
            entry.completedDocuments = try row.int(3) ?? 0
            entry.estimatedDocuments = try row.int(4)
            entries.append(entry)
        }
        return entries
    }

    private static func bumpVersion(in db: PostgresConnection) throws {
        try db.query("UPDATE index_catalog_version SET version = version + 1 WHERE id = 1")
    }

    /// Takes the commit gate every document commit takes shared first, exclusively, until the transaction ends:
    /// waits for the commits in progress and holds off new ones (PostgresCommitOrder).
    private static func lockCommits(in db: PostgresConnection) throws {
        try PostgresCommitOrder.lockAllCommits(in: db)
    }

    private static func documentPath(collection: String, id: String) -> ResourcePath {
        ResourcePath(segments: collection.split(separator: "/").map(String.init) + [id])
    }
}
