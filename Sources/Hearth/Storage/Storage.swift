public import Foundation
import Synchronization

/// Files in a bucket of one app — Hearth's `Storage` (Cloud Storage for Firebase), over the server's Firebase
/// Storage v0 REST API.
///
/// ```swift
/// let ref = Storage.storage().reference().child("images/cat.jpg")
/// let metadata = try await ref.putDataAsync(jpeg)
/// let url = try await ref.downloadURL()
/// ```
///
/// Completions and task observers run on ``callbackQueue`` (the main queue by default), never inside the call that
/// started them; `async` forms resume wherever Swift resumes them.
public final class Storage: Sendable {
    /// The app this instance belongs to.
    public let app: HearthApp
    /// The bucket its references point into.
    let bucket: String
    let callbacks = CallbackQueue()
    private let chunkSize = Atomic<Int64>(Storage.defaultChunkSize)
    private let retryMillis = Atomic<Int64>(600_000)

    /// The chunk size of resumable uploads unless ``uploadChunkSizeBytes`` is set: 4 MiB.
    static let defaultChunkSize: Int64 = 4 << 20
    /// The resumable protocol's granularity: chunks are whole multiples of it.
    static let chunkGranularity: Int64 = 256 << 10

    init(app: HearthApp, bucket: String) {
        self.app = app
        self.bucket = bucket
    }

    /// The default app's Storage, on its default bucket. Call ``HearthApp/configure(options:)`` first.
    public static func storage() -> Storage { storage(app: HearthApp.requireDefault) }

    /// The Storage of `app`, on its default bucket (``HearthOptions/storageBucket``, else `{projectID}.appspot.com`).
    /// - Parameter app: the app.
    public static func storage(app: HearthApp) -> Storage { app.storage(bucket: app.options.defaultStorageBucket) }

    /// The default app's Storage on the bucket of a `gs://bucket` URL.
    /// - Parameter url: `gs://bucket` (a path after the bucket is ignored).
    public static func storage(url: String) -> Storage { storage(app: HearthApp.requireDefault, url: url) }

    /// The Storage of `app` on the bucket of a `gs://bucket` URL.
    /// - Parameters:
    ///   - app: the app.
    ///   - url: `gs://bucket`.
    /// - Precondition: `url` is a `gs://` URL naming a bucket, as Firebase requires.
    public static func storage(app: HearthApp, url: String) -> Storage {
        guard url.hasPrefix("gs://"), let path = try? StoragePath.parse(url: url) else {
            preconditionFailure("Storage.storage(url:) needs a gs://bucket URL, not \(url).")
        }
        return app.storage(bucket: path.bucket)
    }

    /// Points this app at a server on `host:port` over HTTP, as with the Storage emulator.
    /// - Parameters:
    ///   - host: the host.
    ///   - port: the port.
    public func useEmulator(withHost host: String, port: Int) { app.useHost(host, port: port) }

    /// The queue completions and task observers run on: the main queue by default, as in Firebase.
    public var callbackQueue: DispatchQueue {
        get { callbacks.current }
        set { callbacks.current = newValue }
    }

    /// The largest chunk a resumable upload sends in one request. Rounded to a multiple of 256 KiB (at least
    /// 256 KiB), as Firebase rounds it. Uploads of up to 256 KiB go in one request whatever this is.
    public var uploadChunkSizeBytes: Int64 {
        get { chunkSize.load(ordering: .relaxed) }
        set {
            let granules = max(1, newValue / Self.chunkGranularity)
            chunkSize.store(granules * Self.chunkGranularity, ordering: .relaxed)
        }
    }

    /// How long, in seconds, an upload keeps retrying a chunk the network lost before failing with
    /// `retryLimitExceeded` (default 600, as in Firebase).
    public var maxUploadRetryTime: TimeInterval {
        get { Double(retryMillis.load(ordering: .relaxed)) / 1000 }
        set { retryMillis.store(Int64(max(0, newValue) * 1000), ordering: .relaxed) }
    }

    /// The bucket's root.
    public func reference() -> StorageReference {
        StorageReference(storage: self, path: StoragePath(bucket: bucket, object: ""))
    }

    /// The reference at a slash-separated path from the bucket's root.
    /// - Parameter path: such as `"images/cat.jpg"`.
    public func reference(withPath path: String) -> StorageReference { reference().child(path) }

    /// The reference a `gs://bucket/path` URL or a download URL (`http(s)://host/v0/b/bucket/o/path?…`) names.
    /// - Parameter url: the URL.
    /// - Throws: ``StorageError`` `pathError` for a URL of neither form, `bucketMismatch` for another bucket.
    public func reference(for url: String) throws -> StorageReference {
        let path = try StoragePath.parse(url: url)
        guard path.bucket == bucket else {
            throw StorageError(
                .bucketMismatch, "The URL's bucket \(path.bucket) is not this Storage's bucket \(bucket).",
                bucket: path.bucket, object: path.object)
        }
        return StorageReference(storage: self, path: path)
    }

    /// The reference a `gs://` or download URL names, as ``reference(for:)``.
    /// - Parameter url: the URL.
    /// - Precondition: the URL parses and names this instance's bucket (Firebase stops the app likewise).
    public func reference(forURL url: String) -> StorageReference {
        do {
            return try reference(for: url)
        } catch {
            preconditionFailure("Storage.reference(forURL:): \(error)")
        }
    }
}

extension HearthOptions {
    /// The bucket `Storage.storage(app:)` uses.
    var defaultStorageBucket: String { storageBucket ?? "\(projectID).appspot.com" }
}
