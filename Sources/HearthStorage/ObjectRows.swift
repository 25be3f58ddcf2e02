import HearthCore
import HearthSQLite

/// Reading and writing `objects` rows: the one place that knows the columns.
enum ObjectRows {
    static let columns =
        "bucket, name, generation, metageneration, blob, size, md5, crc32c, content_type, cache_control, "
        + "content_disposition, content_encoding, content_language, custom, tokens, created_ms, updated_ms"

    static func fetch(_ db: SQLiteConnection, bucket: String, name: String) throws -> StoredObject? {
        try db.fetchOne(
            "SELECT \(unsafeSQL: columns) FROM objects WHERE bucket = \(bucket) AND name = \(name)"
        ).map(decode)
    }

    /// Inserts the object or replaces the row of the same name.
    static func upsert(_ db: SQLiteConnection, _ object: StoredObject) throws {
        let attributes = object.attributes
        let custom = String(
            decoding: JSONValue.object(attributes.custom.mapValues { .string($0) }).serialized(), as: UTF8.self)
        let tokens = String(
            decoding: JSONValue.array(object.downloadTokens.map { .string($0) }).serialized(), as: UTF8.self)
        try db.execute(
            """
            INSERT OR REPLACE INTO objects (\(unsafeSQL: columns)) VALUES (\(object.bucket), \(object.name),
            \(object.generation), \(object.metageneration), \(object.blobID), \(object.size), \(object.md5Hash),
            \(object.crc32c), \(attributes.contentType), \(attributes.cacheControl), \(attributes.contentDisposition),
            \(attributes.contentEncoding), \(attributes.contentLanguage), \(custom), \(tokens),
            \(object.timeCreatedMillis), \(object.updatedMillis))
            """)
    }

    static func decode(_ row: SQLiteRow) -> StoredObject {
        let custom = (try? JSONParser.parse(row.string(13) ?? "{}"))?.objectValue ?? [:]
        let tokens = (try? JSONParser.parse(row.string(14) ?? "[]"))?.arrayValue ?? []
        return StoredObject(
            bucket: row.string(0) ?? "", name: row.string(1) ?? "", generation: row.int64(2) ?? 0,
            metageneration: row.int64(3) ?? 1, size: row.int64(5) ?? 0, md5Hash: row.string(6) ?? "",
            crc32c: row.string(7) ?? "",
            attributes: ObjectAttributes(
                contentType: row.string(8), cacheControl: row.string(9), contentDisposition: row.string(10),
                contentEncoding: row.string(11), contentLanguage: row.string(12),
                custom: custom.compactMapValues { $0.stringValue }),
            downloadTokens: tokens.compactMap { $0.stringValue }, timeCreatedMillis: row.int64(15) ?? 0,
            updatedMillis: row.int64(16) ?? 0, blobID: row.string(4) ?? "")
    }
}
