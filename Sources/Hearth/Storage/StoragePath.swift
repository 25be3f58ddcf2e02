import Foundation

/// A bucket and an object path within it, as `gs://bucket/path` names them. Paths are kept without leading,
/// trailing or doubled slashes, as Firebase normalises them.
struct StoragePath: Sendable, Hashable {
    let bucket: String
    /// The object path, `""` at the root.
    let object: String

    init(bucket: String, object: String) {
        self.bucket = bucket
        self.object = Self.normalized(object)
    }

    /// `path` without empty segments.
    static func normalized(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// The path of `child` below this one (`child` may hold slashes).
    func child(_ child: String) -> StoragePath {
        let tail = Self.normalized(child)
        if tail.isEmpty { return self }
        return StoragePath(bucket: bucket, object: object.isEmpty ? tail : object + "/" + tail)
    }

    /// One level up, or `nil` at the root.
    var parent: StoragePath? {
        guard !object.isEmpty else { return nil }
        guard let slash = object.lastIndex(of: "/") else { return StoragePath(bucket: bucket, object: "") }
        return StoragePath(bucket: bucket, object: String(object[..<slash]))
    }

    /// The last segment (`""` at the root).
    var name: String { object.split(separator: "/").last.map(String.init) ?? "" }

    /// A path from a `gs://bucket/path` URL or an `http(s)://host/v0/b/bucket/o/path` URL (a download URL).
    /// - Throws: ``StorageError`` `pathError` for anything else.
    static func parse(url text: String) throws(StorageError) -> StoragePath {
        if text.hasPrefix("gs://") {
            let rest = text.dropFirst("gs://".count)
            let bucket = rest.prefix { $0 != "/" }
            guard !bucket.isEmpty else { throw StorageError(.pathError, "The URL \(text) names no bucket.") }
            return StoragePath(bucket: String(bucket), object: String(rest.dropFirst(bucket.count)))
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "http" || scheme == "https"
        else {
            throw StorageError(.pathError, "\(text) is neither a gs:// URL nor an http(s):// Storage URL.")
        }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        // ["", "v0", "b", bucket, "o", name?]
        guard segments.count >= 5, segments[1] == "v0", segments[2] == "b", segments[4] == "o",
            let bucket = String(segments[3]).removingPercentEncoding
        else {
            throw StorageError(.pathError, "\(text) is not a Storage URL (/v0/b/{bucket}/o/{path}).")
        }
        let name = segments.dropFirst(5).joined(separator: "/")
        return StoragePath(bucket: bucket, object: name.removingPercentEncoding ?? name)
    }

    /// `text` with everything but unreserved characters percent-encoded (a slash becomes `%2F`), as one URL
    /// segment or query value.
    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet()
        allowed.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
