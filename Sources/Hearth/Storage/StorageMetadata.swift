public import Foundation
import HearthCore
import Synchronization

/// An object's metadata — Hearth's `StorageMetadata`: what the server reports (`size`, `md5Hash`, `generation`,
/// times) and what an app may set on upload or with `updateMetadata` (`contentType`, `cacheControl`,
/// `contentDisposition`, `contentEncoding`, `contentLanguage`, `customMetadata`).
///
/// As in Firebase it is a mutable object. An update sends only the fields changed since the server reported them
/// (a field set to `nil`, or a custom key removed, is cleared on the server).
public final class StorageMetadata: Sendable, CustomStringConvertible {
    private let fields: Mutex<StorageMetadataFields>
    /// The fields as the server last reported them; `updateMetadata` sends the difference.
    let initial: StorageMetadataFields
    /// The reference this metadata describes, when it came from the server.
    public let storageReference: StorageReference?

    /// Empty metadata, to fill in before an upload or update.
    public convenience init() { self.init(fields: StorageMetadataFields(), reference: nil) }

    /// Metadata from Firebase's JSON keys (`contentType`, `metadata`, `size`, …).
    /// - Parameter dictionary: the fields.
    public convenience init(dictionary: [String: AnyHashable]) {
        self.init(fields: StorageMetadataFields(dictionary: dictionary), reference: nil)
    }

    init(fields: StorageMetadataFields, reference: StorageReference?) {
        self.fields = Mutex(fields)
        self.initial = fields
        self.storageReference = reference
    }

    private func value<T>(_ keyPath: KeyPath<StorageMetadataFields, T>) -> T { current[keyPath: keyPath] }
    private func store<T: Sendable>(_ keyPath: WritableKeyPath<StorageMetadataFields, T>, _ value: T) {
        fields.withLock { $0[keyPath: keyPath] = value }
    }

    /// The bucket.
    public var bucket: String { value(\.bucket) }
    /// The object's full path.
    public var path: String? { value(\.path) }
    /// The object's last path component.
    public var name: String? { value(\.path).map { String($0.split(separator: "/").last ?? "") } }
    /// The size in bytes.
    public var size: Int64 { value(\.size) }
    /// The content's MD5 hash, base64.
    public var md5Hash: String? { value(\.md5Hash) }
    /// The object's generation: a new one with every upload.
    public var generation: Int64 { value(\.generation) }
    /// The metadata's generation: a new one with every metadata change.
    public var metageneration: Int64 { value(\.metageneration) }
    /// When the object was created.
    public var timeCreated: Date? { value(\.timeCreated) }
    /// When the object or its metadata last changed.
    public var updated: Date? { value(\.updated) }
    /// Whether this describes a stored object (the server reported it).
    public var isFile: Bool { value(\.path) != nil && storageReference != nil }
    /// Whether this describes a folder (never, as in Firebase: listings give references for folders).
    public var isFolder: Bool { false }

    /// The MIME type, served back as `Content-Type`.
    public var contentType: String? {
        get { value(\.contentType) }
        set { store(\.contentType, newValue) }
    }
    /// Served back as `Cache-Control`.
    public var cacheControl: String? {
        get { value(\.cacheControl) }
        set { store(\.cacheControl, newValue) }
    }
    /// Served back as `Content-Disposition`.
    public var contentDisposition: String? {
        get { value(\.contentDisposition) }
        set { store(\.contentDisposition, newValue) }
    }
    /// Served back as `Content-Encoding`.
    public var contentEncoding: String? {
        get { value(\.contentEncoding) }
        set { store(\.contentEncoding, newValue) }
    }
    /// Served back as `Content-Language`.
    public var contentLanguage: String? {
        get { value(\.contentLanguage) }
        set { store(\.contentLanguage, newValue) }
    }
    /// The app's own key–value pairs.
    public var customMetadata: [String: String]? {
        get { value(\.custom) }
        set { store(\.custom, newValue) }
    }

    /// The fields under Firebase's JSON keys.
    public func dictionaryRepresentation() -> [String: AnyHashable] { fields.withLock { $0.dictionary } }

    /// The fields now.
    var current: StorageMetadataFields { fields.withLock { $0 } }

    /// `StorageMetadata(path, size, contentType)`.
    public var description: String {
        let now = current
        return "StorageMetadata(\(now.path ?? "-"), \(now.size) bytes, \(now.contentType ?? "no content type"))"
    }
}

/// The plain values behind ``StorageMetadata``.
struct StorageMetadataFields: Sendable, Equatable {
    var bucket = ""
    var path: String?
    var size: Int64 = 0
    var md5Hash: String?
    var generation: Int64 = 0
    var metageneration: Int64 = 0
    var timeCreated: Date?
    var updated: Date?
    var downloadTokens: [String] = []
    var contentType: String?
    var cacheControl: String?
    var contentDisposition: String?
    var contentEncoding: String?
    var contentLanguage: String?
    var custom: [String: String]?

    init() {}

    /// The fields of the server's metadata JSON.
    init(json: JSONValue) {
        func text(_ key: String) -> String? { json[key]?.stringValue }
        func number(_ key: String) -> Int64 {
            if let value = json[key]?.stringValue { return Int64(value) ?? 0 }
            if case .integer(let value)? = json[key] { return value }
            return 0
        }
        bucket = text("bucket") ?? ""
        path = text("name")
        size = number("size")
        md5Hash = text("md5Hash")
        generation = number("generation")
        metageneration = number("metageneration")
        timeCreated = text("timeCreated").flatMap(Self.date)
        updated = text("updated").flatMap(Self.date)
        downloadTokens = (text("downloadTokens") ?? "").split(separator: ",").map(String.init)
        contentType = text("contentType")
        cacheControl = text("cacheControl")
        contentDisposition = text("contentDisposition")
        contentEncoding = text("contentEncoding")
        contentLanguage = text("contentLanguage")
        if case .object(let entries)? = json["metadata"] {
            custom = entries.compactMapValues { $0.stringValue }
        }
    }

    init(dictionary: [String: AnyHashable]) {
        var object: [String: JSONValue] = [:]
        for (key, value) in dictionary {
            if let text = value as? String {
                object[key] = .string(text)
            } else if let number = value as? Int64 {
                object[key] = .string(String(number))
            } else if let number = value as? Int {
                object[key] = .string(String(number))
            } else if let entries = value as? [String: String] {
                object[key] = .object(entries.mapValues { .string($0) })
            }
        }
        self.init(json: .object(object))
    }

    /// The fields an app sets, as the upload's metadata JSON.
    var writable: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if let contentType { fields["contentType"] = .string(contentType) }
        if let cacheControl { fields["cacheControl"] = .string(cacheControl) }
        if let contentDisposition { fields["contentDisposition"] = .string(contentDisposition) }
        if let contentEncoding { fields["contentEncoding"] = .string(contentEncoding) }
        if let contentLanguage { fields["contentLanguage"] = .string(contentLanguage) }
        if let custom, !custom.isEmpty { fields["metadata"] = .object(custom.mapValues { .string($0) }) }
        return fields
    }

    /// What changed from `initial`: changed fields with their values, cleared ones as `null`; in `metadata`,
    /// removed keys as `null`.
    func changes(since initial: StorageMetadataFields) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        func compare(_ key: String, _ keyPath: KeyPath<StorageMetadataFields, String?>) {
            let now = self[keyPath: keyPath]
            guard now != initial[keyPath: keyPath] else { return }
            fields[key] = now.map { .string($0) } ?? .null
        }
        compare("contentType", \.contentType)
        compare("cacheControl", \.cacheControl)
        compare("contentDisposition", \.contentDisposition)
        compare("contentEncoding", \.contentEncoding)
        compare("contentLanguage", \.contentLanguage)
        let before = initial.custom ?? [:]
        let after = custom ?? [:]
        if before != after {
            var entries: [String: JSONValue] = [:]
            for (key, value) in after where before[key] != value { entries[key] = .string(value) }
            for key in before.keys where after[key] == nil { entries[key] = .null }
            fields["metadata"] = .object(entries)
        }
        return fields
    }

    var dictionary: [String: AnyHashable] {
        var out: [String: AnyHashable] = ["bucket": bucket, "size": size, "generation": String(generation)]
        out["metageneration"] = String(metageneration)
        if let path { out["name"] = path }
        if let md5Hash { out["md5Hash"] = md5Hash }
        for (key, value) in writable {
            if let text = value.stringValue { out[key] = text }
        }
        if let custom { out["metadata"] = custom }
        if let timeCreated { out["timeCreated"] = Self.format(timeCreated) }
        if let updated { out["updated"] = Self.format(updated) }
        return out
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
