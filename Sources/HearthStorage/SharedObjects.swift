package import HearthCore

/// Where objects live when several nodes serve one project: their metadata and bytes in a database every node shares
/// (PostgreSQL's `PostgresObjects`), so that any node serves any object. A ``FileStore`` given one keeps no object rows
/// of its own; its `blobs/` directory becomes a cache of bytes fetched by blob ID (a blob never changes: new bytes get
/// a new ID). Resumable upload sessions are shared as well (``SharedUploadSessions``), so any node continues one.
package protocol SharedObjects: SharedUploadSessions {
    /// The object, or `nil`.
    func object(bucket: String, name: String) throws(HearthError) -> StoredObject?

    /// Stores the bytes of the sealed file at `path` as the blob of `object` and `object` as the row of its name, in
    /// one transaction; returns the blob of the generation it replaced, whose bytes are gone when no row names it.
    /// - Throws: `FAILED_PRECONDITION` when `ifGenerationMatch` is given and is not the current generation (0: there
    ///   must be no object); nothing is stored then.
    func place(
        _ object: StoredObject, bytesAt path: String, ifGenerationMatch: Int64?
    ) throws(HearthError)
        -> String?

    /// Deletes the object (and its bytes when no other row names them); the blob it had, or `nil` when there was none.
    func delete(bucket: String, name: String) throws(HearthError) -> String?

    /// Replaces the object's row under a row lock with what `change` makes of it.
    /// - Throws: `NOT_FOUND` when there is no such object, or what `change` throws.
    func update(
        bucket: String, name: String, _ change: (inout StoredObject) throws(HearthError) -> Void
    ) throws(HearthError) -> StoredObject

    /// Up to `limit` objects of `bucket` whose names start with `prefix` and sort after `after`, in name order (bytes).
    func page(bucket: String, prefix: String, after: String, limit: Int) throws(HearthError) -> [StoredObject]

    /// Writes the bytes of the blob `id` to `descriptor`.
    /// - Throws: `NOT_FOUND` when no blob has that ID (its object was deleted meanwhile).
    func writeBlob(_ id: String, to descriptor: Int32) throws(HearthError)
}

extension StoredObject {
    /// An object as shared storage keeps it.
    package init(
        bucket: String, name: String, generation: Int64, metageneration: Int64, size: Int64, md5Hash: String,
        crc32c: String, attributes: ObjectAttributes, downloadTokens: [String], timeCreatedMillis: Int64,
        updatedMillis: Int64, blob: String
    ) {
        self.init(
            bucket: bucket, name: name, generation: generation, metageneration: metageneration, size: size,
            md5Hash: md5Hash, crc32c: crc32c, attributes: attributes, downloadTokens: downloadTokens,
            timeCreatedMillis: timeCreatedMillis, updatedMillis: updatedMillis, blobID: blob)
    }

    /// The blob holding the bytes.
    package var blob: String { blobID }
}
