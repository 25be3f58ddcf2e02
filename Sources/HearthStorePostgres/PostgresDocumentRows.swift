import HearthCore
internal import HearthPostgres
import HearthStore

/// The `documents` table: one row per document, keyed by parent collection and ID.
enum PostgresDocumentRows {
    /// The stored document at `path`, or `nil`. `locking` takes its row lock until the transaction ends (a commit
    /// reads what it writes that way).
    static func fetch(_ path: ResourcePath, locking: Bool = false, in db: PostgresConnection) throws -> StoredDocument?
    {
        let (collection, id) = key(path)
        let rows = try db.query(
            "SELECT fields, create_time, update_time FROM documents WHERE collection = $1 AND id = $2"
                + (locking ? " FOR UPDATE" : ""),
            [.text(collection), .text(id)], binaryResults: true)
        guard rows.count == 1 else { return nil }
        let row = rows[0]
        return StoredDocument(
            path: path, fieldsJSON: try row.bytes(0) ?? [], createTime: Timestamp(microseconds: try row.int(1) ?? 0),
            updateTime: Timestamp(microseconds: try row.int(2) ?? 0))
    }

    /// Inserts or replaces a document.
    static func store(_ document: StoredDocument, in db: PostgresConnection) throws {
        let (collection, id) = key(document.path)
        try db.query(
            """
            INSERT INTO documents(collection, id, fields, create_time, update_time) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (collection, id) DO UPDATE
            SET fields = excluded.fields, create_time = excluded.create_time, update_time = excluded.update_time
            """,
            [
                .text(collection), .text(id), .binary(document.fieldsJSON), .int(document.createTime.microseconds),
                .int(document.updateTime.microseconds),
            ])
    }

    /// Deletes a document's row.
    static func delete(_ path: ResourcePath, in db: PostgresConnection) throws {
        let (collection, id) = key(path)
        try db.query("DELETE FROM documents WHERE collection = $1 AND id = $2", [.text(collection), .text(id)])
    }

    /// Every stored document (the wipe's before images), locked until the transaction ends.
    static func all(in db: PostgresConnection) throws -> [StoredDocument] {
        let rows = try db.query(
            "SELECT collection, id, fields, create_time, update_time FROM documents ORDER BY collection, id FOR UPDATE",
            binaryResults: true)
        return try rows.rows.map { row in
            let collection = try row.string(0) ?? ""
            let id = try row.string(1) ?? ""
            return StoredDocument(
                path: ResourcePath(segments: collection.split(separator: "/").map(String.init) + [id]),
                fieldsJSON: try row.bytes(2) ?? [], createTime: Timestamp(microseconds: try row.int(3) ?? 0),
                updateTime: Timestamp(microseconds: try row.int(4) ?? 0))
        }
    }

    /// The row key of a document path: its parent collection's path and its ID.
    private static func key(_ path: ResourcePath) -> (collection: String, id: String) {
        (path.segments.dropLast().joined(separator: "/"), path.segments.last ?? "")
    }
}
