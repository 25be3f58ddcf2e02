public import Foundation
public import Hearth
import Synchronization

/// A file in Storage that a model holds as a field — Ballcap's `File`.
///
/// ```swift
/// struct Model: Modelable, Codable { var title = ""; var photo: File? }
/// let photo = File(user, name: "avatar", data: jpeg, mimeType: .jpeg)   // users/{id}/avatar.jpg
/// try await photo.save()                                               // uploads, then fills `url`
/// user[\.photo] = photo
/// try await user.update()
/// ```
///
/// In the document it is a map `{path, url, mimeType, metadata}`, as Ballcap stores it; a file read back from a
/// document points into the document's app's default bucket. Like Ballcap's, it is a shared object; its state is
/// kept behind a lock, so it may cross threads.
public final class File: Hashable, Sendable, CustomDebugStringConvertible {
    private struct State {
        var url: URL?
        var mimeType: MIMEType
        var metadata: [String: String]
        var data: Data?
        var originalURL: URL?
        var storageMetadata: StorageMetadata?
        /// Whether ``data`` holds the stored bytes as downloaded, rather than bytes to upload.
        var dataIsStored = false
    }

    /// Where the bytes live.
    public let storageReference: StorageReference
    private let state: Mutex<State>

    /// A file at `storageReference`, its name given the MIME type's extension when it has none (`"a"` with
    /// `.plain` becomes `"a.txt"`); with no MIME type, one is taken from the name's extension.
    /// - Parameters:
    ///   - storageReference: where to store it.
    ///   - data: the bytes to upload with ``save(_:)``.
    ///   - mimeType: the content type.
    ///   - url: a download URL already known.
    ///   - metadata: custom metadata stored with the bytes.
    public init(
        _ storageReference: StorageReference, data: Data? = nil, mimeType: MIMEType? = nil, url: URL? = nil,
        metadata: [String: String] = [:]
    ) {
        let (name, type) = Self.name(storageReference.name, mimeType: mimeType)
        self.storageReference = storageReference.parent()?.child(name) ?? storageReference
        state = Mutex(State(url: url, mimeType: type, metadata: metadata, data: data))
    }

    /// A file beside `object`'s document (at `{collection}/{id}/{name}` in Storage), named `name` or, without one,
    /// by the current time in milliseconds.
    /// - Parameters:
    ///   - object: the document the file belongs to.
    ///   - name: the file's name.
    ///   - data: the bytes.
    ///   - mimeType: the content type.
    ///   - metadata: custom metadata.
    @MainActor
    public convenience init(
        _ object: Object, name: String? = nil, data: Data? = nil, mimeType: MIMEType? = nil,
        metadata: [String: String] = [:]
    ) {
        let fileName = name ?? String(Int64(Date().timeIntervalSince1970 * 1000))
        let (named, type) = Self.name(fileName, mimeType: mimeType)
        self.init(object.storageReference.child(named), data: data, mimeType: type, metadata: metadata)
    }

    /// A file to upload from a local file (``save(_:)`` streams it), at `storageReference`.
    /// - Parameters:
    ///   - storageReference: where to store it.
    ///   - fileURL: the local file.
    ///   - mimeType: the content type; without one, taken from the name's extension.
    ///   - metadata: custom metadata.
    public convenience init(
        _ storageReference: StorageReference, fileURL: URL, mimeType: MIMEType? = nil, metadata: [String: String] = [:]
    ) {
        self.init(
            storageReference, mimeType: mimeType ?? MIMEType(fileExtension: fileURL.pathExtension), metadata: metadata)
        state.withLock { $0.originalURL = fileURL }
    }

    /// The file's name (its last path component).
    public var name: String { storageReference.name }

    /// The path in the bucket.
    public var path: String { storageReference.fullPath }

    /// The download URL, filled in by ``save(_:)``.
    public var url: URL? {
        get { state.withLock { $0.url } }
        set { state.withLock { $0.url = newValue } }
    }

    /// The content type.
    public var mimeType: MIMEType {
        get { state.withLock { $0.mimeType } }
        set { state.withLock { $0.mimeType = newValue } }
    }

    /// Custom metadata stored with the bytes.
    public var metadata: [String: String] {
        get { state.withLock { $0.metadata } }
        set { state.withLock { $0.metadata = newValue } }
    }

    /// ``metadata`` under the name earlier Ballcap versions gave it.
    public var additionalData: [String: String] {
        get { metadata }
        set { metadata = newValue }
    }

    /// The bytes: those given to upload, or those read by ``getData(_:completion:)``.
    public var data: Data? {
        get { state.withLock { $0.data } }
        set {
            state.withLock {
                $0.data = newValue
                $0.dataIsStored = false
            }
        }
    }

    /// Keeps `downloaded`, the stored bytes, in ``data`` without marking them as bytes to upload.
    func keep(downloaded: Data) {
        state.withLock {
            $0.data = downloaded
            $0.dataIsStored = true
        }
    }

    /// Whether saving the document that holds the file uploads it first: it has bytes of its own (``data`` not
    /// read from Storage, or an ``originalURL``) and ``save(_:)`` has not stored them yet.
    public var hasUnsavedBytes: Bool {
        state.withLock { state in
            state.storageMetadata == nil && ((state.data != nil && !state.dataIsStored) || state.originalURL != nil)
        }
    }

    /// The local file ``save(_:)`` uploads when there is no ``data``.
    public var originalURL: URL? {
        get { state.withLock { $0.originalURL } }
        set { state.withLock { $0.originalURL = newValue } }
    }

    /// The stored object's metadata, once saved.
    public var storageMetadata: StorageMetadata? {
        get { state.withLock { $0.storageMetadata } }
        set { state.withLock { $0.storageMetadata = newValue } }
    }

    /// Whether ``save(_:)`` has stored the bytes.
    public var isUploaded: Bool { storageMetadata != nil }

    /// Whether both are at the same path with the same type and bytes.
    public static func == (lhs: File, rhs: File) -> Bool {
        lhs.path == rhs.path && lhs.mimeType == rhs.mimeType && lhs.data == rhs.data
    }

    /// Hashes the path and bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(data)
    }

    /// The path, URL, type and metadata.
    public var debugDescription: String {
        "File(path: \(path), url: \(url?.absoluteString ?? "-"), mimeType: \(mimeType.rawValue), metadata: \(metadata))"
    }

    /// `name` with the extension of `mimeType` when it has none, and the type (from the extension when not given).
    static func name(_ name: String, mimeType: MIMEType?) -> (String, MIMEType) {
        let pathExtension = (name as NSString).pathExtension
        if let mimeType {
            let suffix = mimeType.fileExtension
            return (pathExtension.isEmpty && !suffix.isEmpty ? "\(name).\(suffix)" : name, mimeType)
        }
        return (name, pathExtension.isEmpty ? .octetStream(nil) : MIMEType(fileExtension: pathExtension))
    }
}
