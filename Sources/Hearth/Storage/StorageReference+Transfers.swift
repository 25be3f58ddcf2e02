public import Foundation

extension StorageReference {
    /// Uploads `uploadData` to this reference, replacing what is there.
    /// - Parameters:
    ///   - uploadData: the bytes.
    ///   - metadata: the content type, custom metadata and other fields to store with them.
    ///   - completion: called on the callback queue with the stored object's metadata, or the error.
    /// - Returns: the running upload, to observe, pause, resume or cancel.
    @discardableResult
    public func putData(
        _ uploadData: Data, metadata: StorageMetadata? = nil,
        completion: ((_ metadata: StorageMetadata?, _ error: (any Error)?) -> Void)? = nil
    ) -> StorageUploadTask {
        upload(.data(uploadData), metadata: metadata, completion: completion)
    }

    /// Uploads the file at `fileURL`, read in chunks (never whole into memory). Without a content type in
    /// `metadata`, one is inferred from the file's extension.
    /// - Parameters:
    ///   - fileURL: a local file.
    ///   - metadata: the fields to store with the bytes.
    ///   - completion: called on the callback queue with the stored object's metadata, or the error.
    /// - Returns: the running upload.
    @discardableResult
    public func putFile(
        from fileURL: URL, metadata: StorageMetadata? = nil,
        completion: ((_ metadata: StorageMetadata?, _ error: (any Error)?) -> Void)? = nil
    ) -> StorageUploadTask {
        upload(.file(fileURL), metadata: metadata, completion: completion)
    }

    private func upload(
        _ source: UploadSource, metadata: StorageMetadata?,
        completion: ((StorageMetadata?, (any Error)?) -> Void)?
    ) -> StorageUploadTask {
        let task = StorageUploadTask(reference: self, source: source, metadata: metadata)
        if let completion = optionalCallbackQueueBound(completion) {
            task.complete { snapshot in completion(snapshot.metadata, snapshot.error) }
        }
        task.enqueue()
        return task
    }

    /// Downloads the object into memory.
    /// - Parameters:
    ///   - maxSize: the most bytes to accept; a larger object fails with `downloadSizeExceeded`.
    ///   - completion: called on the callback queue with the bytes, or the error.
    /// - Returns: the running download.
    @discardableResult
    public func getData(
        maxSize: Int64, completion: @escaping (_ data: Data?, _ error: (any Error)?) -> Void
    ) -> StorageDownloadTask {
        let task = StorageDownloadTask(reference: self, destination: .memory(maxSize: maxSize))
        let completion = callbackQueueBound(completion)
        task.complete { snapshot in
            completion(snapshot.error == nil ? task.result.withLock { $0 } : nil, snapshot.error)
        }
        task.enqueue()
        return task
    }

    /// Downloads the object into the file at `fileURL` (its directory is created; an existing file is replaced
    /// once the download is complete).
    /// - Parameters:
    ///   - fileURL: a local file.
    ///   - completion: called on the callback queue with `fileURL`, or the error.
    /// - Returns: the running download.
    @discardableResult
    public func write(
        toFile fileURL: URL, completion: ((_ url: URL?, _ error: (any Error)?) -> Void)? = nil
    ) -> StorageDownloadTask {
        let task = StorageDownloadTask(reference: self, destination: .file(fileURL))
        if let completion = optionalCallbackQueueBound(completion) {
            task.complete { snapshot in completion(snapshot.error == nil ? fileURL : nil, snapshot.error) }
        }
        task.enqueue()
        return task
    }
}
