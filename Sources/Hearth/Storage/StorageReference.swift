import Foundation

/// A file or folder in a bucket — Hearth's `StorageReference`. Made by ``Storage/reference()`` and its relatives
/// and by ``child(_:)``; making one reads or writes nothing.
public final class StorageReference: Sendable, Hashable, CustomStringConvertible {
    /// The Storage instance this reference belongs to.
    public let storage: Storage
    let path: StoragePath

    init(storage: Storage, path: StoragePath) {
        self.storage = storage
        self.path = path
    }

    /// The bucket.
    public var bucket: String { path.bucket }

    /// The object's path in the bucket, without a leading slash (`""` at the root).
    public var fullPath: String { path.object }

    /// The last path component (`""` at the root).
    public var name: String { path.name }

    /// The reference `path` below this one; `path` may hold slashes (`"images/cat.jpg"`), and empty segments are
    /// dropped.
    /// - Parameter path: a relative path.
    public func child(_ path: String) -> StorageReference {
        StorageReference(storage: storage, path: self.path.child(path))
    }

    /// The reference one level up, or `nil` at the root.
    public func parent() -> StorageReference? { path.parent.map { StorageReference(storage: storage, path: $0) } }

    /// The bucket's root.
    public func root() -> StorageReference {
        StorageReference(storage: storage, path: StoragePath(bucket: bucket, object: ""))
    }

    /// `gs://bucket/path`.
    public var description: String { "gs://\(bucket)/\(fullPath)" }

    /// Whether both name the same object of the same bucket in the same app.
    public static func == (lhs: StorageReference, rhs: StorageReference) -> Bool {
        lhs.path == rhs.path && lhs.storage.app === rhs.storage.app
    }

    /// Hashes the bucket and path.
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// An error about this reference.
    func error(_ code: StorageErrorCode, _ message: String) -> StorageError {
        StorageError(code, message, bucket: bucket, object: fullPath)
    }
}
