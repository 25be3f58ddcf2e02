public import Foundation

extension StorageReference {
    /// Uploads `uploadData` and returns the stored object's metadata.
    /// - Parameters:
    ///   - uploadData: the bytes.
    ///   - metadata: the fields to store with them.
    ///   - onProgress: called on the callback queue as chunks arrive at the server.
    /// - Returns: the stored object's metadata.
    public func putDataAsync(
        _ uploadData: Data, metadata: StorageMetadata? = nil, onProgress: ((Progress?) -> Void)? = nil
    ) async throws -> StorageMetadata {
        try await finish(putData(uploadData, metadata: metadata), onProgress: onProgress)
    }

    /// Uploads the file at `url` and returns the stored object's metadata.
    /// - Parameters:
    ///   - url: a local file.
    ///   - metadata: the fields to store with the bytes.
    ///   - onProgress: called on the callback queue as chunks arrive at the server.
    /// - Returns: the stored object's metadata.
    public func putFileAsync(
        from url: URL, metadata: StorageMetadata? = nil, onProgress: ((Progress?) -> Void)? = nil
    ) async throws -> StorageMetadata {
        try await finish(putFile(from: url, metadata: metadata), onProgress: onProgress)
    }

    /// Downloads the object into memory.
    /// - Parameter maxSize: the most bytes to accept; a larger object throws `downloadSizeExceeded`.
    /// - Returns: the bytes.
    public func data(maxSize: Int64) async throws -> Data {
        let task = getData(maxSize: maxSize) { _, _ in }
        _ = try await outcome(of: task, onProgress: nil)
        return task.result.withLock { $0 } ?? Data()
    }

    /// Downloads the object into the file at `fileURL`.
    /// - Parameters:
    ///   - fileURL: a local file.
    ///   - onProgress: called on the callback queue as bytes arrive.
    /// - Returns: `fileURL`.
    public func writeAsync(toFile fileURL: URL, onProgress: ((Progress?) -> Void)? = nil) async throws -> URL {
        _ = try await outcome(of: write(toFile: fileURL), onProgress: onProgress)
        return fileURL
    }

    private func finish(_ task: StorageUploadTask, onProgress: ((Progress?) -> Void)?) async throws -> StorageMetadata {
        guard let metadata = try await outcome(of: task, onProgress: onProgress) else {
            throw error(.internalError, "The upload finished without metadata.")
        }
        return metadata
    }

    /// Waits for `task` to succeed (its metadata) or fail (its error). With `onProgress`, it resumes after the
    /// progress calls queued before the end have run.
    private func outcome(
        of task: StorageObservableTask, onProgress: ((Progress?) -> Void)?
    ) async throws -> StorageMetadata? {
        if let onProgress { task.observe(.progress) { onProgress($0.progress) } }
        let snapshot = await withCheckedContinuation { continuation in
            task.whenFinished { continuation.resume(returning: $0) }
        }
        if onProgress != nil { await storage.callbacks.drain() }
        if let error = snapshot.error { throw error }
        return snapshot.metadata
    }
}
