public import HearthCore

/// An object as storage rules see it (`resource`, `request.resource`): Cloud Storage's metadata fields.
public struct StorageRulesObject: Sendable, Equatable {
    /// The full object name.
    public var name: String
    /// The bucket.
    public var bucket: String
    /// The byte count.
    public var size: Int64
    /// The MIME type, if any.
    public var contentType: String?
    /// The custom metadata.
    public var metadata: [String: String]
    /// The generation, for an existing object.
    public var generation: Int64?
    /// The metageneration, for an existing object.
    public var metageneration: Int64?
    /// Base64 MD5, when known.
    public var md5Hash: String?
    /// Base64 CRC-32C, when known.
    public var crc32c: String?
    /// `Cache-Control`, `Content-Disposition`, `Content-Encoding`, `Content-Language`.
    public var cacheControl: String?, contentDisposition: String?, contentEncoding: String?, contentLanguage: String?
    /// Creation and update times, for an existing object.
    public var timeCreated: Timestamp?, updated: Timestamp?

    /// An object's fields.
    public init(
        name: String, bucket: String, size: Int64, contentType: String? = nil, metadata: [String: String] = [:],
        generation: Int64? = nil, metageneration: Int64? = nil, md5Hash: String? = nil, crc32c: String? = nil,
        cacheControl: String? = nil, contentDisposition: String? = nil, contentEncoding: String? = nil,
        contentLanguage: String? = nil, timeCreated: Timestamp? = nil, updated: Timestamp? = nil
    ) {
        self.name = name
        self.bucket = bucket
        self.size = size
        self.contentType = contentType
        self.metadata = metadata
        self.generation = generation
        self.metageneration = metageneration
        self.md5Hash = md5Hash
        self.crc32c = crc32c
        self.cacheControl = cacheControl
        self.contentDisposition = contentDisposition
        self.contentEncoding = contentEncoding
        self.contentLanguage = contentLanguage
        self.timeCreated = timeCreated
        self.updated = updated
    }

    /// The rules map: every field, with absent optional ones as null (as Firebase shows them).
    var rulesValue: RulesValue {
        func text(_ value: String?) -> RulesValue { value.map(RulesValue.string) ?? .null }
        return .map([
            "name": .string(name), "bucket": .string(bucket), "size": .int(size),
            "contentType": text(contentType), "metadata": .map(metadata.mapValues(RulesValue.string)),
            "generation": generation.map { .int($0) } ?? .null,
            "metageneration": metageneration.map { .int($0) } ?? .null, "md5Hash": text(md5Hash),
            "crc32c": text(crc32c), "cacheControl": text(cacheControl),
            "contentDisposition": text(contentDisposition), "contentEncoding": text(contentEncoding),
            "contentLanguage": text(contentLanguage), "timeCreated": timeCreated.map { .timestamp($0) } ?? .null,
            "updated": updated.map { .timestamp($0) } ?? .null,
        ])
    }
}

/// One request as storage rules judge it.
public struct StorageRequest: Sendable {
    /// The operation: `get` (metadata or download), `list`, `create`, `update` (overwrite or metadata), `delete`.
    public var method: FirestoreMethod
    /// The bucket bound to `{bucket}`.
    public var bucket: String
    /// The object name (`photos/cat.jpg`), or for a list the prefix (`photos/`).
    public var name: String
    /// The caller; `nil` when unauthenticated.
    public var auth: AuthContext?
    /// `request.time`.
    public var time: Timestamp
    /// The stored object (`resource`); `nil` when there is none.
    public var existing: StorageRulesObject?
    /// The object as the write would leave it (`request.resource`), for create and update.
    public var incoming: StorageRulesObject?

    /// A request.
    public init(
        method: FirestoreMethod, bucket: String, name: String, auth: AuthContext?, time: Timestamp,
        existing: StorageRulesObject? = nil, incoming: StorageRulesObject? = nil
    ) {
        self.method = method
        self.bucket = bucket
        self.name = name
        self.auth = auth
        self.time = time
        self.existing = existing
        self.incoming = incoming
    }
}
