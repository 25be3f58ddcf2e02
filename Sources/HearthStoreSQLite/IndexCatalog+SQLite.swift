import HearthCore
import HearthSQLite
import HearthStore

/// The SQLite side of the composite index catalog: `composite_indexes` and `composite_entries`.
extension IndexCatalog {
    /// Makes the stored catalog match `definitions`: new ones are added as building, dropped ones are deleted
    /// with their entries. Returns the IDs that need a build.
    func reconcile(with definitions: [IndexDefinition], in db: SQLiteConnection) throws -> [Int64] {
        try db.transaction(.immediate) {
            var stored: [Entry] = []
            for row in try db.fetchAll("SELECT id, definition, state FROM composite_indexes ORDER BY id") {
                let id = row[0].int64Value ?? 0
                let text = row[1].stringValue ?? ""
                let parsed = try? IndexDefinition(firestoreJSON: JSONParser.parse(text), at: "stored index")
                if let parsed, definitions.contains(parsed) {
                    stored.append(Entry(id: id, definition: parsed, ready: row[2].stringValue == "ready"))
                } else {
                    try db.execute("DELETE FROM composite_entries WHERE index_id = \(id)")
                    try db.execute("DELETE FROM composite_indexes WHERE id = \(id)")
                }
            }
            var toBuild = stored.filter { !$0.ready }.map(\.id)
            for definition in definitions where !stored.contains(where: { $0.definition == definition }) {
                try db.execute(
                    "INSERT INTO composite_indexes(definition, state) VALUES (\(definition.description), 'building')")
                let entry = Entry(id: db.lastInsertRowID, definition: definition, ready: false)
                stored.append(entry)
                toBuild.append(entry.id)
            }
            replaceAll(stored)
            return toBuild
        }
    }

    /// Brings one document's composite entries from its old to its new fields.
    func updateEntries(path: ResourcePath, old: [String: Value]?, new: [String: Value]?, in db: SQLiteConnection) throws
    {
        let indexes = self.indexes(forCollectionID: path.parent.lastSegment)
        guard !indexes.isEmpty, path.isDocument else { return }
        for index in indexes {
            let nameKey = index.definition.nameKey(of: path)
            let scope = index.definition.scope(of: path)
            let oldKeys = Set(old.map { index.definition.keys(for: $0) } ?? [])
            let newKeys = Set(new.map { index.definition.keys(for: $0) } ?? [])
            for key in oldKeys.subtracting(newKeys) {
                try db.execute(
                    """
                    DELETE FROM composite_entries WHERE index_id = \(index.id) AND scope = \(scope)
                    AND key = \(key) AND name_key = \(nameKey)
                    """)
            }
            for key in newKeys.subtracting(oldKeys) {
                try db.execute(
                    """
                    INSERT OR REPLACE INTO composite_entries(index_id, scope, key, name_key, path)
                    VALUES (\(index.id), \(scope), \(key), \(nameKey), \(path.description))
                    """)
            }
        }
    }

    /// Indexes up to `limit` documents of the index's collection ID after `cursor` (a `name_key`), inside the
    /// writer's transaction so the build interleaves with commits without missing or doubling an entry.
    /// The first step (an empty cursor) also counts the documents to index, for the build's progress.
    func buildStep(indexID: Int64, after cursor: [UInt8], limit: Int, in db: SQLiteConnection) throws -> BuildStep {
        guard let index = all.first(where: { $0.id == indexID }) else { return BuildStep(next: nil, indexed: 0) }
        var estimated: Int64?
        if cursor.isEmpty {
            let counted = try db.fetchAll(
                "SELECT count(*) FROM documents WHERE collection_id = \(index.definition.collectionID)")
            estimated = counted.first?[0].int64Value ?? 0
        }
        let rows = try db.fetchAll(
            """
            SELECT d.collection, d.id, coalesce(b.fields, d.fields), d.name_key
            FROM documents d LEFT JOIN document_bodies b ON b.id = d.body
            WHERE d.collection_id = \(index.definition.collectionID) AND d.name_key > \(cursor)
            ORDER BY d.name_key LIMIT \(limit)
            """)
        for row in rows {
            let path = ResourcePath(
                segments: ((row[0].stringValue ?? "") + "/" + (row[1].stringValue ?? "")).split(separator: "/").map(
                    String.init))
            let fields = try Value.decodeStoredFields(try JSONParser.parse(row[2].blobValue ?? []))
            let scope = index.definition.scope(of: path)
            for key in Set(index.definition.keys(for: fields)) {
                try db.execute(
                    """
                    INSERT OR REPLACE INTO composite_entries(index_id, scope, key, name_key, path)
                    VALUES (\(index.id), \(scope), \(key), \(index.definition.nameKey(of: path)), \(path.description))
                    """)
            }
        }
        if rows.count < limit {
            // The in-memory state flips after the commit (see CommitWriter), so it never runs ahead of the disk.
            try db.execute("UPDATE composite_indexes SET state = 'ready' WHERE id = \(indexID)")
            return BuildStep(next: nil, indexed: rows.count, estimated: estimated)
        }
        return BuildStep(next: rows.last?[3].blobValue, indexed: rows.count, estimated: estimated)
    }
}
