public import HearthCore
import HearthSQLite

/// One page of a listing: objects directly under the prefix, and the "folders" the delimiter rolled up.
public struct ObjectListing: Sendable, Equatable {
    /// The objects, in name order.
    public var items: [StoredObject]
    /// The rolled-up prefixes (`photos/2024/`), in order.
    public var prefixes: [String]
    /// The token of the next page, or `nil` on the last.
    public var nextPageToken: String?
}

extension FileStore {
    /// The largest page.
    public static let maxListResults = 1000

    /// Lists `bucket`'s objects whose names start with `prefix`, in name order. With a `delimiter`, names that
    /// hold it after the prefix are rolled up into one prefix each. `pageToken` is the last name (or prefix) of the
    /// previous page.
    public func list(
        bucket: String, prefix: String, delimiter: String?, maxResults: Int, pageToken: String?
    ) throws(HearthError) -> ObjectListing {
        let limit = min(max(1, maxResults), Self.maxListResults)
        var after = pageToken.flatMap { Base64URL.decode($0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        if after < prefix { after = prefix }
        var items: [StoredObject] = []
        var prefixes: [String] = []
        var more = false
        let page = { (after: String) throws(HearthError) -> [StoredObject] in
            if let shared = self.configuration.shared {
                return try shared.page(bucket: bucket, prefix: prefix, after: after, limit: 200)
            }
            return try self.withDatabase { db in
                try db.fetchAll(
                    """
                    SELECT \(unsafeSQL: ObjectRows.columns) FROM objects
                    WHERE bucket = \(bucket) AND name > \(after) AND substr(name, 1, \(prefix.utf8.count)) = \(prefix)
                    ORDER BY name LIMIT 200
                    """
                ).map(ObjectRows.decode)
            }
        }
        do {
            // Rows are read in batches past the last name seen; a rolled-up prefix skips past all its names at once.
            scan: while true {
                let objects = try page(after)
                if objects.isEmpty { break }
                for object in objects {
                    if items.count + prefixes.count == limit {
                        more = true
                        break scan
                    }
                    let rest = object.name.utf8.dropFirst(prefix.utf8.count)
                    if let delimiter, !delimiter.isEmpty,
                        let range = String(decoding: rest, as: UTF8.self).range(of: delimiter)
                    {
                        let folder = prefix + String(String(decoding: rest, as: UTF8.self)[..<range.upperBound])
                        prefixes.append(folder)
                        // Past every name under this folder: U+10FFFF sorts after any character in SQLite's order.
                        after = folder + "\u{10FFFF}"
                        continue scan
                    }
                    items.append(object)
                    after = object.name
                }
            }
        }
        let last = prefixes.last.map { $0 + "\u{10FFFF}" }
        let token = max(items.last?.name ?? "", last ?? "")
        return ObjectListing(
            items: items, prefixes: prefixes,
            nextPageToken: more ? Base64URL.encode(Array(token.utf8)) : nil)
    }
}
