public import Foundation
public import Hearth

/// Why a ``File`` could not be saved.
public enum FileError: Error, Sendable, CustomStringConvertible {
    /// The file has neither ``File/data`` nor ``File/originalURL`` to upload.
    case invalidData(path: String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .invalidData(let path): "The file \(path) has no data and no local file to upload."
        }
    }
}

extension File {
    private var uploadMetadata: StorageMetadata {
        let metadata = StorageMetadata()
        metadata.contentType = mimeType.rawValue
        if !self.metadata.isEmpty { metadata.customMetadata = self.metadata }
        return metadata
    }

    /// Uploads ``data`` (or the file at ``originalURL``), then fills ``storageMetadata`` and ``url``.
    /// - Parameter completion: called on the Storage callback queue (the main queue by default) with the stored
    ///   metadata, or the error.
    /// - Returns: the running upload, or `nil` when there is nothing to upload (`completion` gets
    ///   ``FileError/invalidData(path:)``).
    @discardableResult
    public func save(_ completion: ((StorageMetadata?, (any Error)?) -> Void)? = nil) -> StorageUploadTask? {
        let done = completion.map { AppBlock($0) }
        let finish: (StorageMetadata?, (any Error)?) -> Void = { [self] metadata, error in
            storageMetadata = metadata
            guard error == nil else { return done?.call(metadata, error) ?? () }
            storageReference.downloadURL { [self] url, error in
                self.url = url
                done?.call(metadata, error)
            }
        }
        if let data {
            return storageReference.putData(data, metadata: uploadMetadata, completion: finish)
        }
        if let originalURL {
            return storageReference.putFile(from: originalURL, metadata: uploadMetadata, completion: finish)
        }
        let error = FileError.invalidData(path: path)
        storageReference.storage.callbackQueue.async { done?.call(nil, error) }
        return nil
    }

    /// Uploads the file and fills ``storageMetadata`` and ``url``.
    /// - Returns: the stored object's metadata.
    /// - Throws: ``FileError/invalidData(path:)`` with nothing to upload, or the Storage error.
    @discardableResult
    public func save() async throws -> StorageMetadata {
        let stored: StorageMetadata
        if let data {
            stored = try await storageReference.putDataAsync(data, metadata: uploadMetadata)
        } else if let originalURL {
            stored = try await storageReference.putFileAsync(from: originalURL, metadata: uploadMetadata)
        } else {
            throw FileError.invalidData(path: path)
        }
        storageMetadata = stored
        url = try await storageReference.downloadURL()
        return stored
    }

    /// The bytes: ``data`` when held, else downloaded (and kept in ``data``).
    /// - Parameters:
    ///   - size: the most bytes to accept (100 MB by default, as Ballcap's).
    ///   - completion: called on the Storage callback queue with the bytes, or the error.
    /// - Returns: the running download, or `nil` when the bytes were already held.
    @discardableResult
    public func getData(
        _ size: Int64 = 100_000_000, completion: @escaping (Data?, (any Error)?) -> Void
    ) -> StorageDownloadTask? {
        let done = AppBlock(completion)
        if let data {
            storageReference.storage.callbackQueue.async { done.call(data, nil) }
            return nil
        }
        return storageReference.getData(maxSize: size) { [self] data, error in
            if let data { self.keep(downloaded: data) }
            done.call(data, error)
        }
    }

    /// The bytes: ``data`` when held, else downloaded (and kept in ``data``).
    /// - Parameter maxSize: the most bytes to accept.
    /// - Returns: the bytes.
    public func getData(maxSize: Int64 = 100_000_000) async throws -> Data {
        if let data { return data }
        let downloaded = try await storageReference.data(maxSize: maxSize)
        keep(downloaded: downloaded)
        return downloaded
    }

    /// Deletes the stored bytes and forgets ``data``, ``storageMetadata`` and ``url``.
    /// - Parameter completion: called on the Storage callback queue with `nil`, or the error.
    public func delete(_ completion: (((any Error)?) -> Void)? = nil) {
        let done = completion.map { AppBlock($0) }
        storageReference.delete { [self] error in
            forget()
            done?.call(error)
        }
    }

    /// Deletes the stored bytes and forgets ``data``, ``storageMetadata`` and ``url``.
    public func delete() async throws {
        try await storageReference.delete()
        forget()
    }

    private func forget() {
        data = nil
        storageMetadata = nil
        url = nil
    }
}

/// An app's completion carried to the Storage callback queue, where it was meant to run (the SDK calls it there
/// only, one call at a time).
private struct AppBlock<Function>: @unchecked Sendable {
    let function: Function
    init(_ function: Function) { self.function = function }
}

extension AppBlock {
    func call<A, B>(_ first: A, _ second: B) where Function == (A, B) -> Void { function(first, second) }
    func call<A>(_ first: A) where Function == (A) -> Void { function(first) }
}
