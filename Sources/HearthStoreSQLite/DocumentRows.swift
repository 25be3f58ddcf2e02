import HearthCore
import HearthSQLite
import HearthStore

/// Reading and writing rows of the `documents` and `index_entries` tables.
enum DocumentRows {
    /// The most bytes of a row's key columns and fields kept in its `documents` row; a larger row's fields go to
    /// `document_bodies` (migration 7), at the price of a second insert. With 1 KiB pages an index B-tree cell holds
    /// about 230 bytes before it overflows, so rows up to this bound overflow by at most four pages, which a key
    /// comparison reads; large documents, whose comparisons read their whole overflow chain (a 100,000-name
    /// `batchGet` beside twenty 200 KB documents: 7-10 s inline, 0.2-0.5 s out), are the ones kept out.
    static let inlineRowBytes = 1024

    static func fetch(_ path: ResourcePath, in db: SQLiteConnection) throws -> StoredDocument? {
        try fetchRow(path, in: db)?.document
    }

    /// The document at `path` and the body its row names (`nil` when its fields are in the row): the writer keeps
    /// the body's ID to delete it once the row no longer names it.
    static func fetchRow(
        _ path: ResourcePath, in db: SQLiteConnection
    ) throws -> (document: StoredDocument, body: Int64?)? {
        let statement = try db.prepare(
            static: "SELECT fields, create_time, update_time, body FROM documents WHERE collection = ? AND id = ?")
        defer { statement.reset() }
        statement.bind(.text(path.parent.description), at: 1)
        statement.bind(.text(path.lastSegment), at: 2)
        guard try statement.step() else { return nil }
        let bodyID = statement.isNull(at: 3) ? nil : statement.int64(at: 3)
        let fields = try bodyID.map { id in try body(id, in: db) } ?? statement.blob(at: 0)
        let document = StoredDocument(
            path: path, fieldsJSON: fields,
            createTime: Timestamp(microseconds: statement.int64(at: 1)),
            updateTime: Timestamp(microseconds: statement.int64(at: 2)))
        return (document, bodyID)
    }

    private static func deleteBody(_ id: Int64, in db: SQLiteConnection) throws {
        try run("DELETE FROM document_bodies WHERE id = ?", in: db) { statement in statement.bind(id, at: 1) }
    }

    /// The fields kept in `document_bodies` under `id`.
    static func body(_ id: Int64, in db: SQLiteConnection) throws -> [UInt8] {
        let statement = try db.prepare(static: "SELECT fields FROM document_bodies WHERE id = ?")
        defer { statement.reset() }
        statement.bind(id, at: 1)
        guard try statement.step() else {
            throw HearthError(.dataLoss, "A document names a body (\(id)) that is not stored.")
        }
        return statement.blob(at: 0)
    }

    /// Writes a document's row and brings its index entries from `oldFields` to the document's; `entries` are the
    /// document's entries when already worked out. `oldBody` is the body the row named before (``fetchRow(_:in:)``),
    /// deleted once the row names another or none.
    static func store(
        _ document: DocumentSnapshot, fieldsJSON: [UInt8], entries: [IndexEntry]? = nil, oldFields: [String: Value]?,
        oldBody: Int64?, in db: SQLiteConnection
    ) throws {
        let collection = document.path.parent.description
        let id = document.path.lastSegment
        let collectionID = document.path.parent.lastSegment
        let nameKey = IndexKey.encode(segments: document.path.segments)
        let rowBytes =
            collection.utf8.count + id.utf8.count + collectionID.utf8.count + nameKey.count + fieldsJSON.count
        // A row that would overflow keeps its fields beside it: a new body each time.
        var body: Int64?
        if rowBytes > inlineRowBytes {
            try run("INSERT INTO document_bodies(fields) VALUES (?)", in: db) { statement in
                statement.bind(fieldsJSON, at: 1)
            }
            body = db.lastInsertRowID
        }
        try run(
            """
            INSERT INTO documents(collection, id, collection_id, name_key, fields, create_time, update_time, body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(collection, id) DO UPDATE SET
                fields = excluded.fields, update_time = excluded.update_time, body = excluded.body
            """, in: db
        ) { statement in
            statement.bind(collection, at: 1)
            statement.bind(id, at: 2)
            statement.bind(collectionID, at: 3)
            statement.bind(nameKey, at: 4)
            statement.bind(body == nil ? fieldsJSON : [], at: 5)
            statement.bind(document.createTime.microseconds, at: 6)
            statement.bind(document.updateTime.microseconds, at: 7)
            if let body { statement.bind(body, at: 8) } else { statement.bindNull(at: 8) }
        }
        if let oldBody, oldBody != body { try deleteBody(oldBody, in: db) }
        try updateIndexEntries(
            collection: collection, id: id, old: oldFields.map(IndexEntry.entries(for:)) ?? [],
            new: entries ?? IndexEntry.entries(for: document.fields), in: db)
    }

    /// Deletes a document's row, the body it names (`oldBody`, from ``fetchRow(_:in:)``) and its index entries.
    static func delete(
        _ path: ResourcePath, oldFields: [String: Value], oldBody: Int64?, in db: SQLiteConnection
    ) throws {
        let collection = path.parent.description
        let id = path.lastSegment
        try run("DELETE FROM documents WHERE collection = ? AND id = ?", in: db) { statement in
            statement.bind(collection, at: 1)
            statement.bind(id, at: 2)
        }
        if let oldBody { try deleteBody(oldBody, in: db) }
        try updateIndexEntries(collection: collection, id: id, old: IndexEntry.entries(for: oldFields), new: [], in: db)
    }

    /// Deletes the entries only the old version had and inserts those only the new one has, so an update
    /// touching one field rewrites one entry.
    private static func updateIndexEntries(
        collection: String, id: String, old: [IndexEntry], new: [IndexEntry], in db: SQLiteConnection
    ) throws {
        // A new document (the common write) has nothing to compare against; its entries are already distinct.
        let (removed, added) =
            old.isEmpty ? ([], new) : (Array(Set(old).subtracting(new)), Array(Set(new).subtracting(old)))
        for entry in removed {
            try run(
                "DELETE FROM index_entries WHERE collection = ? AND field = ? AND kind = ? AND key = ? AND id = ?",
                in: db
            ) {
                statement in
                bind(entry, collection: collection, id: id, to: statement)
            }
        }
        for entry in added {
            try run("INSERT INTO index_entries(collection, field, kind, key, id) VALUES (?, ?, ?, ?, ?)", in: db) {
                statement in
                bind(entry, collection: collection, id: id, to: statement)
            }
        }
    }

    private static func bind(_ entry: IndexEntry, collection: String, id: String, to statement: SQLiteStatement) {
        statement.bind(collection, at: 1)
        statement.bind(entry.field, at: 2)
        statement.bind(Int64(entry.kind.rawValue), at: 3)
        statement.bind(entry.key, at: 4)
        statement.bind(id, at: 5)
    }

    /// Runs a cached statement with typed bindings: the write path builds no SQL text per row.
    static func run(_ sql: StaticString, in db: SQLiteConnection, _ bind: (SQLiteStatement) -> Void) throws {
        let statement = try db.prepare(static: sql)
        defer { statement.reset() }
        bind(statement)
        while try statement.step() {}
    }
}
