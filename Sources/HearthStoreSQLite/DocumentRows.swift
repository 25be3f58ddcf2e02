import HearthCore
import HearthStore
import HearthSQLite

/// Reading and writing rows of the `documents` and `index_entries` tables.
enum DocumentRows {
    static func fetch(_ path: ResourcePath, in db: SQLiteConnection) throws -> StoredDocument? {
        let statement = try db.prepare(
            "SELECT fields, create_time, update_time FROM documents WHERE collection = ? AND id = ?")
        defer { statement.reset() }
        statement.bind(.text(path.parent.description), at: 1)
        statement.bind(.text(path.lastSegment), at: 2)
        guard try statement.step() else { return nil }
        return StoredDocument(
            path: path, fieldsJSON: statement.blob(at: 0),
            createTime: Timestamp(microseconds: statement.int64(at: 1)),
            updateTime: Timestamp(microseconds: statement.int64(at: 2)))
    }

    /// Writes a document's row and brings its index entries from `oldFields` to `newFields`.
    static func store(_ document: DocumentSnapshot, fieldsJSON: [UInt8], oldFields: [String: Value]?, in db: SQLiteConnection) throws {
        let collection = document.path.parent.description
        let id = document.path.lastSegment
        try db.execute(
            """
            INSERT INTO documents(collection, id, collection_id, name_key, fields, create_time, update_time)
            VALUES (\(collection), \(id), \(document.path.parent.lastSegment), \(IndexKey.encode(segments: document.path.segments)),
                    \(fieldsJSON), \(document.createTime.microseconds), \(document.updateTime.microseconds))
            ON CONFLICT(collection, id) DO UPDATE SET fields = excluded.fields, update_time = excluded.update_time
            """)
        try updateIndexEntries(
            collection: collection, id: id, old: oldFields.map(IndexEntry.entries(for:)) ?? [],
            new: IndexEntry.entries(for: document.fields), in: db)
    }

    static func delete(_ path: ResourcePath, oldFields: [String: Value], in db: SQLiteConnection) throws {
        let collection = path.parent.description
        let id = path.lastSegment
        try db.execute("DELETE FROM documents WHERE collection = \(collection) AND id = \(id)")
        try updateIndexEntries(collection: collection, id: id, old: IndexEntry.entries(for: oldFields), new: [], in: db)
    }

    /// Deletes the entries only the old version had and inserts those only the new one has, so an update
    /// touching one field rewrites one entry.
    private static func updateIndexEntries(collection: String, id: String, old: [IndexEntry], new: [IndexEntry], in db: SQLiteConnection) throws {
        let oldSet = Set(old)
        let newSet = Set(new)
        for entry in oldSet.subtracting(newSet) {
            try db.execute(
                """
                DELETE FROM index_entries WHERE collection = \(collection) AND field = \(entry.field)
                AND kind = \(entry.kind.rawValue) AND key = \(entry.key) AND id = \(id)
                """)
        }
        for entry in newSet.subtracting(oldSet) {
            try db.execute(
                """
                INSERT INTO index_entries(collection, field, kind, key, id)
                VALUES (\(collection), \(entry.field), \(entry.kind.rawValue), \(entry.key), \(id))
                """)
        }
    }
}
