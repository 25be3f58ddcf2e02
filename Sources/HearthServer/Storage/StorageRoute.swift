import HearthCore
import HearthHTTP

/// A parsed Firebase Storage v0 URL: `/v0/b/{bucket}/o` (the bucket's objects) or `/v0/b/{bucket}/o/{name}`.
///
/// libmicrohttpd has already percent-decoded the path, so the `photos%2Fcat.jpg` Firebase's clients send arrives as
/// `photos/cat.jpg`: everything after `/o/` is the object name, slashes and all.
struct StorageRoute: Equatable {
    let bucket: String
    /// The object name; `nil` for the bucket's object collection.
    let name: String?

    /// The route of `path`, or `nil` when it is not a v0 Storage path.
    static func parse(_ path: String) -> StorageRoute? {
        guard path.hasPrefix("/v0/b/") else { return nil }
        let rest = path.dropFirst("/v0/b/".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let bucket = String(rest[..<slash])
        let tail = rest[rest.index(after: slash)...]
        guard !bucket.isEmpty else { return nil }
        if tail == "o" || tail == "o/" { return StorageRoute(bucket: bucket, name: nil) }
        guard tail.hasPrefix("o/") else { return nil }
        return StorageRoute(bucket: bucket, name: String(tail.dropFirst(2)))
    }
}
