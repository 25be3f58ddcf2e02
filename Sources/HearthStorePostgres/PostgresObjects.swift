import Foundation
package import HearthCore
internal import HearthPostgres
package import HearthStorage

/// File storage's objects in the PostgreSQL database every node shares (`storage_objects`, bytes in
/// `storage_blob_chunks`): an upload on one node is served by every node, and a delete or a metadata change on one
/// is seen by all. Each node's `FileStore` keeps fetched bytes in its `blobs/` as a cache.
package final class PostgresObjects: SharedObjects {
    let store: PostgresDocumentStore
    let blobs: PostgresBlobs

    /// The objects in the database of `store` (migrated when it opened), which its owner closes; their bytes in
    /// chunks of at most a MiB unless `chunkBytes` says otherwise (tests use small ones to make many).
    package init(store: PostgresDocumentStore, chunkBytes: Int = 1 << 20) {
        self.store = store
        blobs = PostgresBlobs(store: store, chunkBytes: chunkBytes)
    }

    private static let columns =
        "bucket, name, generation, metageneration, blob, size, md5, crc32c, content_type, cache_control, "
        + "content_disposition, content_encoding, content_language, custom, tokens, created_ms, updated_ms"

    package func object(bucket: String, name: String) throws(HearthError) -> StoredObject? {
        try store.read("reading a file's metadata") { db in try Self.fetch(bucket, name, locking: false, in: db) }
    }

    package func place(
        _ object: StoredObject, bytesAt path: String, ifGenerationMatch: Int64?
    ) throws(HearthError) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .internal("Cannot read the upload to store: errno \(errno).") }
        defer { close(descriptor) }
        let chunkBytes = blobs.chunkBytes
        return try write("storing a file") { db in
            try Self.replaceRow(with: object, ifGenerationMatch: ifGenerationMatch, in: db) {
                _ = try PostgresBlobs.insert(object.blob, from: descriptor, chunkBytes: chunkBytes, in: db)
            }
        }
    }

    package func delete(bucket: String, name: String) throws(HearthError) -> String? {
        try write("deleting a file") { db in
            guard let object = try Self.fetch(bucket, name, locking: true, in: db) else { return nil }
            try db.query("DELETE FROM storage_objects WHERE bucket = $1 AND name = $2", [.text(bucket), .text(name)])
            try PostgresBlobs.remove(object.blob, in: db)
            return object.blob
        }
    }

    package func update(
        bucket: String, name: String, _ change: (inout StoredObject) throws(HearthError) -> Void
    ) throws(HearthError) -> StoredObject {
        try write("changing a file's metadata") { db in
            guard var object = try Self.fetch(bucket, name, locking: true, in: db) else {
                throw HearthError.notFound("No object named \(name.prefix(200)).")
            }
            try change(&object)
            try Self.upsert(object, in: db)
            return object
        }
    }

    package func page(bucket: String, prefix: String, after: String, limit: Int) throws(HearthError) -> [StoredObject] {
        try store.read("listing files") { db in
            try db.query(
                """
                SELECT \(Self.columns) FROM storage_objects
                WHERE bucket = $1 AND name > $2 AND starts_with(name, $3) ORDER BY name LIMIT $4
                """, [.text(bucket), .text(after), .text(prefix), .int(Int64(limit))]
            ).rows.map(Self.decode)
        }
    }

    package func writeBlob(_ id: String, to descriptor: Int32) throws(HearthError) {
        _ = try blobs.write(id, to: descriptor)
    }

    // MARK: - Rows

    func write<T>(_ what: String, _ body: (PostgresConnection) throws -> T) throws(HearthError) -> T {
        do {
            return try store.writer.withTransaction("BEGIN", body)
        } catch {
            throw hearthError(error, doing: what)
        }
    }

    /// Makes `object` the row of its name in the caller's transaction, once `storeBytes` has put its blob's chunks
    /// there, and removes the bytes of the generation it replaces; returns that generation's blob. The one way a new
    /// generation lands, whether its bytes came in one request (`place`) or chunk by chunk (`finish`).
    /// - Throws: `FAILED_PRECONDITION` when `ifGenerationMatch` is given and is not the current generation.
    static func replaceRow(
        with object: StoredObject, ifGenerationMatch: Int64?, in db: PostgresConnection,
        storeBytes: () throws -> Void
    ) throws -> String? {
        // A name that has no row yet has nothing to lock: the name's advisory lock orders two first uploads.
        try lockName(object.bucket, object.name, in: db)
        let previous = try fetch(object.bucket, object.name, locking: true, in: db)
        if let expected = ifGenerationMatch, expected != (previous?.generation ?? 0) {
            throw HearthError(
                .failedPrecondition,
                "The object's generation does not match the precondition ifGenerationMatch=\(expected).")
        }
        try storeBytes()
        try upsert(object, in: db)
        if let previous { try PostgresBlobs.remove(previous.blob, in: db) }
        return previous?.blob
    }

    /// Takes the transaction-scoped advisory lock of one object name.
    private static func lockName(_ bucket: String, _ name: String, in db: PostgresConnection) throws {
        try db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text(bucket + "/" + name)])
    }

    private static func fetch(
        _ bucket: String, _ name: String, locking: Bool, in db: PostgresConnection
    ) throws -> StoredObject? {
        let rows = try db.query(
            "SELECT \(columns) FROM storage_objects WHERE bucket = $1 AND name = $2" + (locking ? " FOR UPDATE" : ""),
            [.text(bucket), .text(name)])
        return try rows.rows.first.map(decode)
    }

    private static func upsert(_ object: StoredObject, in db: PostgresConnection) throws {
        let attributes = object.attributes
        let custom = String(
            decoding: JSONValue.object(attributes.custom.mapValues { .string($0) }).serialized(), as: UTF8.self)
        let tokens = String(
            decoding: JSONValue.array(object.downloadTokens.map { .string($0) }).serialized(), as: UTF8.self)
        let optional: (String?) -> PostgresParameter = { $0.map { .text($0) } ?? .null }
        try db.query(
            """
            INSERT INTO storage_objects(\(columns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
            ON CONFLICT (bucket, name) DO UPDATE SET generation = excluded.generation,
                metageneration = excluded.metageneration, blob = excluded.blob, size = excluded.size,
                md5 = excluded.md5, crc32c = excluded.crc32c, content_type = excluded.content_type,
                cache_control = excluded.cache_control, content_disposition = excluded.content_disposition,
                content_encoding = excluded.content_encoding, content_language = excluded.content_language,
                custom = excluded.custom, tokens = excluded.tokens, created_ms = excluded.created_ms,
                updated_ms = excluded.updated_ms
            """,
            [
                .text(object.bucket), .text(object.name), .int(object.generation), .int(object.metageneration),
                .text(object.blob), .int(object.size), .text(object.md5Hash), .text(object.crc32c),
                optional(attributes.contentType), optional(attributes.cacheControl),
                optional(attributes.contentDisposition), optional(attributes.contentEncoding),
                optional(attributes.contentLanguage), .text(custom), .text(tokens), .int(object.timeCreatedMillis),
                .int(object.updatedMillis),
            ])
    }

    private static func decode(_ row: PostgresRow) throws -> StoredObject {
        let custom = (try? JSONParser.parse(try row.string(13) ?? "{}"))?.objectValue ?? [:]
        let tokens = (try? JSONParser.parse(try row.string(14) ?? "[]"))?.arrayValue ?? []
        return StoredObject(
            bucket: try row.string(0) ?? "", name: try row.string(1) ?? "", generation: try row.int(2) ?? 0,
            metageneration: try row.int(3) ?? 1, size: try row.int(5) ?? 0, md5Hash: try row.string(6) ?? "",
            crc32c: try row.string(7) ?? "",
            attributes: ObjectAttributes(
                contentType: try row.string(8), cacheControl: try row.string(9),
                contentDisposition: try row.string(10), contentEncoding: try row.string(11),
                contentLanguage: try row.string(12), custom: custom.compactMapValues { $0.stringValue }),
            downloadTokens: tokens.compactMap { $0.stringValue }, timeCreatedMillis: try row.int(15) ?? 0,
            updatedMillis: try row.int(16) ?? 0, blob: try row.string(4) ?? "")
    }
}
