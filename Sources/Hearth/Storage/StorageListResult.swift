import HearthCore

/// One page of a listing — Hearth's `StorageListResult`: the files and the "folders" directly under a reference.
public final class StorageListResult: Sendable {
    /// The folders (prefixes shared by deeper objects), in name order.
    public let prefixes: [StorageReference]
    /// The files, in name order.
    public let items: [StorageReference]
    /// The token for the next page, `nil` on the last.
    public let pageToken: String?

    init(prefixes: [StorageReference], items: [StorageReference], pageToken: String?) {
        self.prefixes = prefixes
        self.items = items
        self.pageToken = pageToken
    }

    /// A page from the server's listing JSON.
    convenience init(json: JSONValue, storage: Storage, bucket: String) {
        func reference(_ name: String) -> StorageReference {
            StorageReference(storage: storage, path: StoragePath(bucket: bucket, object: name))
        }
        let prefixes = (json["prefixes"]?.arrayValue ?? []).compactMap { $0.stringValue }.map(reference)
        let items = (json["items"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }.map(reference)
        self.init(prefixes: prefixes, items: items, pageToken: json["nextPageToken"]?.stringValue)
    }
}
