import HearthCore
internal import HearthPostgres
import HearthStore

/// The `documents` table: one row per document, keyed by parent collection and ID, with its collection ID and name
/// key for collection-group scans (`documents_by_group`).
enum PostgresDocumentRows {
    /// A row lock a read takes until its transaction ends.
    enum RowLock: String {
        /// What a commit takes on what it writes.
        case update = " FOR UPDATE"
        /// What a transaction's commit takes on what it read, so that it stays as checked.
        case share = " FOR SHARE"
    }

    /// The stored document at `path`, or `nil`. `locking` takes its row lock until the transaction ends (a commit
    /// reads what it writes that way).
    static func fetch(
        _ path: ResourcePath, locking: RowLock? = nil, in db: PostgresConnection
    ) throws -> StoredDocument? {
        let (sql, parameters) = fetchStatement(path, locking: locking)
        let rows = try db.query(sql, parameters, binaryResults: true)
        guard rows.count == 1 else { return nil }
        let row = rows[0]
        return StoredDocument(
            path: path, fieldsJSON: try row.bytes(0) ?? [], createTime: Timestamp(microseconds: try row.int(1) ?? 0),
            updateTime: Timestamp(microseconds: try row.int(2) ?? 0))
    }

    /// The stored documents at `paths` (`nil` for each absent one), read in one statement per thousand paths;
    /// `locking` takes their row locks until the transaction ends.
    static func fetch(
        _ paths: [ResourcePath], locking: RowLock?, in db: PostgresConnection
    ) throws -> [ResourcePath: StoredDocument?] {
        var found: [ResourcePath: StoredDocument?] = [:]
        let distinct = Array(Set(paths))
        for start in stride(from: 0, to: distinct.count, by: 1_000) {
            let chunk = distinct[start..<min(start + 1_000, distinct.count)]
            let (sql, parameters) = fetchStatement(chunk, locking: locking)
            try decode(try db.query(sql, parameters, binaryResults: true), of: chunk, into: &found)
        }
        return found
    }

    /// The statement that reads the documents at `paths` at once: primary-key lookups joined to the list.
    static func fetchStatement(
        _ paths: some Collection<ResourcePath>, locking: RowLock?
    ) -> (String, [PostgresParameter]) {
        var parameters: [PostgresParameter] = []
        var tuples: [String] = []
        for path in paths {
            let (collection, id) = key(path)
            parameters += [.text(collection), .text(id)]
            tuples.append("($\(parameters.count - 1)::text, $\(parameters.count)::text)")
        }
        let sql = """
            SELECT d.collection, d.id, d.fields, d.create_time, d.update_time
            FROM documents d JOIN (VALUES \(tuples.joined(separator: ", "))) AS wanted(collection, id)
            ON d.collection = wanted.collection AND d.id = wanted.id
            """
        return (sql + (locking.map { $0.rawValue + " OF d" } ?? ""), parameters)
    }

    /// Reads the rows of a ``fetchStatement(_:locking:)`` into `found`, `nil` for each of `paths` not stored.
    static func decode(
        _ rows: PostgresRows, of paths: some Collection<ResourcePath>, into found: inout [ResourcePath: StoredDocument?]
    ) throws {
        for path in paths { found[path] = .some(nil) }
        for row in rows.rows {
            let collection = try row.string(0) ?? ""
            let path = ResourcePath(
                segments: collection.split(separator: "/").map(String.init) + [try row.string(1) ?? ""])
            found[path] = StoredDocument(
                path: path, fieldsJSON: try row.bytes(2) ?? [],
                createTime: Timestamp(microseconds: try row.int(3) ?? 0),
                updateTime: Timestamp(microseconds: try row.int(4) ?? 0))
        }
    }

    /// The statement ``fetch(_:locking:in:)`` runs (a primary-key lookup).
    static func fetchStatement(_ path: ResourcePath, locking: RowLock? = nil) -> (String, [PostgresParameter]) {
        let (collection, id) = key(path)
        return (
            "SELECT fields, create_time, update_time FROM documents WHERE collection = $1 AND id = $2"
                + (locking?.rawValue ?? ""), [.text(collection), .text(id)]
        )
    }

    /// Inserts or replaces a document.
    static func store(_ document: StoredDocument, in db: PostgresConnection) throws {
        let (collection, id) = key(document.path)
        try db.query(
            """
            INSERT INTO documents(collection, id, fields, create_time, update_time, collection_id, name_key)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (collection, id) DO UPDATE
            SET fields = excluded.fields, create_time = excluded.create_time, update_time = excluded.update_time,
                collection_id = excluded.collection_id, name_key = excluded.name_key
            """,
            [
                .text(collection), .text(id), .binary(document.fieldsJSON), .int(document.createTime.microseconds),
                .int(document.updateTime.microseconds), .text(document.path.parent.lastSegment),
                .binary(IndexKey.encode(segments: document.path.segments)),
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
