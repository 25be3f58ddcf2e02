public import Foundation

/// Firebase's `Result`-typed completions: the same calls as the `(value?, error?)` forms, for code written as
/// `ref.putData(data) { result in switch result { … } }`. Each one runs through its pair form, so it is called on the
/// callback queue, once, exactly when the pair form would be.
extension StorageReference {
    /// A pair-form completion that hands `completion` a `Result` (a call that gives neither a value nor an error is
    /// a failure, never silence).
    private func resultCallback<Value>(
        _ completion: @escaping (Result<Value, any Error>) -> Void
    ) -> (Value?, (any Error)?) -> Void {
        { [self] value, failure in
            if let value {
                completion(.success(value))
            } else {
                completion(
                    .failure(failure ?? error(.internalError, "The call ended with neither a value nor an error.")))
            }
        }
    }

    /// A long-lived download URL carrying the object's download token.
    /// - Parameter completion: called with the URL or the error.
    public func downloadURL(completion: @escaping (Result<URL, any Error>) -> Void) {
        downloadURL(completion: resultCallback(completion))
    }

    /// Downloads the object into memory.
    /// - Parameters:
    ///   - maxSize: the most bytes to accept; a larger object fails with `downloadSizeExceeded`.
    ///   - completion: called with the bytes or the error.
    /// - Returns: the running download.
    @discardableResult
    public func getData(
        maxSize: Int64, completion: @escaping (Result<Data, any Error>) -> Void
    )
        -> StorageDownloadTask
    {
        getData(maxSize: maxSize, completion: resultCallback(completion))
    }

    /// The object's metadata.
    /// - Parameter completion: called with the metadata or the error.
    public func getMetadata(completion: @escaping (Result<StorageMetadata, any Error>) -> Void) {
        getMetadata(completion: resultCallback(completion))
    }

    /// The page after `pageToken`.
    /// - Parameters:
    ///   - maxResults: the page size, 1…1000.
    ///   - pageToken: a previous page's token.
    ///   - completion: called with the page or the error.
    public func list(
        maxResults: Int64, pageToken: String, completion: @escaping (Result<StorageListResult, any Error>) -> Void
    ) {
        list(maxResults: maxResults, pageToken: pageToken, completion: resultCallback(completion))
    }

    /// One page of the items and prefixes under this reference.
    /// - Parameters:
    ///   - maxResults: the page size, 1…1000.
    ///   - completion: called with the page or the error.
    public func list(maxResults: Int64, completion: @escaping (Result<StorageListResult, any Error>) -> Void) {
        list(maxResults: maxResults, completion: resultCallback(completion))
    }

    /// Everything under this reference.
    /// - Parameter completion: called with all pages together or the error.
    public func listAll(completion: @escaping (Result<StorageListResult, any Error>) -> Void) {
        listAll(completion: resultCallback(completion))
    }

    /// Uploads `uploadData` to this reference, replacing what is there.
    /// - Parameters:
    ///   - uploadData: the bytes.
    ///   - metadata: the fields to store with them.
    ///   - completion: called with the stored object's metadata or the error.
    /// - Returns: the running upload.
    @discardableResult
    public func putData(
        _ uploadData: Data, metadata: StorageMetadata? = nil,
        completion: @escaping (Result<StorageMetadata, any Error>) -> Void
    ) -> StorageUploadTask {
        putData(uploadData, metadata: metadata, completion: resultCallback(completion))
    }

    /// Uploads the file at `fileURL`, read in chunks.
    /// - Parameters:
    ///   - fileURL: a local file.
    ///   - metadata: the fields to store with the bytes.
    ///   - completion: called with the stored object's metadata or the error.
    /// - Returns: the running upload.
    @discardableResult
    public func putFile(
        from fileURL: URL, metadata: StorageMetadata? = nil,
        completion: @escaping (Result<StorageMetadata, any Error>) -> Void
    ) -> StorageUploadTask {
        putFile(from: fileURL, metadata: metadata, completion: resultCallback(completion))
    }

    /// Updates the object's metadata.
    /// - Parameters:
    ///   - metadata: the fields to change.
    ///   - completion: called with the stored metadata or the error.
    public func updateMetadata(
        _ metadata: StorageMetadata, completion: @escaping (Result<StorageMetadata, any Error>) -> Void
    ) {
        updateMetadata(metadata, completion: resultCallback(completion))
    }

    /// Downloads the object into the file at `fileURL`.
    /// - Parameters:
    ///   - fileURL: a local file.
    ///   - completion: called with `fileURL` or the error.
    /// - Returns: the running download.
    @discardableResult
    public func write(
        toFile fileURL: URL, completion: @escaping (Result<URL, any Error>) -> Void
    )
        -> StorageDownloadTask
    {
        write(toFile: fileURL, completion: resultCallback(completion))
    }
}
