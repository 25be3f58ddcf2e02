import Foundation

/// The settable part of an object's metadata, as uploads and metadata updates give it.
public struct ObjectAttributes: Sendable, Equatable {
    /// The MIME type served as `Content-Type`.
    public var contentType: String?
    /// Served as `Cache-Control`.
    public var cacheControl: String?
    /// Served as `Content-Disposition`.
    public var contentDisposition: String?
    /// Served as `Content-Encoding`.
    public var contentEncoding: String?
    /// Served as `Content-Language`.
    public var contentLanguage: String?
    /// The custom key-value metadata.
    public var custom: [String: String]

    /// Attributes with the given values.
    public init(
        contentType: String? = nil, cacheControl: String? = nil, contentDisposition: String? = nil,
        contentEncoding: String? = nil, contentLanguage: String? = nil, custom: [String: String] = [:]
    ) {
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.contentDisposition = contentDisposition
        self.contentEncoding = contentEncoding
        self.contentLanguage = contentLanguage
        self.custom = custom
    }
}

/// One stored object: its place, its generation, its checksums and its attributes.
public struct StoredObject: Sendable, Equatable {
    /// The bucket.
    public var bucket: String
    /// The full object name (`photos/cat.jpg`).
    public var name: String
    /// Changes each time the bytes are replaced (microseconds since 1970, as Cloud Storage's).
    public var generation: Int64
    /// Counts metadata changes of this generation, from 1.
    public var metageneration: Int64
    /// The byte count.
    public var size: Int64
    /// Base64 of the MD5 digest.
    public var md5Hash: String
    /// Base64 of the big-endian CRC-32C.
    public var crc32c: String
    /// The settable attributes.
    public var attributes: ObjectAttributes
    /// The download tokens (`?token=`), in creation order.
    public var downloadTokens: [String]
    /// When this generation was written, in milliseconds since 1970.
    public var timeCreatedMillis: Int64
    /// When the metadata last changed, in milliseconds since 1970.
    public var updatedMillis: Int64
    /// The blob holding the bytes.
    let blobID: String

    /// The entity tag: changes with the bytes and with the metadata.
    public var etag: String {
        Data("\(generation)/\(metageneration)/\(md5Hash)".utf8).base64EncodedString()
    }
}
