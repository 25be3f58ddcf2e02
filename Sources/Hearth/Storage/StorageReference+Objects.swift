public import Foundation
import HearthCore

extension StorageReference {
    private var client: StorageClient { StorageClient(reference: self) }

    /// The object's metadata.
    /// - Throws: ``StorageError`` (`objectNotFound`, `unauthorized`, …).
    public func getMetadata() async throws -> StorageMetadata { try await client.fetchMetadata() }

    /// The object's metadata, passed to `completion` on the callback queue.
    /// - Parameter completion: called with the metadata, or the error.
    public func getMetadata(completion: @escaping (_ metadata: StorageMetadata?, _ error: (any Error)?) -> Void) {
        storage.callbacks.complete(callbackQueueBound(completion)) { try await self.getMetadata() }
    }

    /// Changes the object's metadata: the fields of `metadata` changed since the server reported them (all set
    /// fields of a new `StorageMetadata()`); a field set to `nil`, or a custom key removed, is cleared.
    /// - Parameter metadata: the new fields.
    /// - Returns: the object's metadata after the change.
    public func updateMetadata(_ metadata: StorageMetadata) async throws -> StorageMetadata {
        let changes = metadata.current.changes(since: metadata.initial)
        let response = try await client.send(
            "PATCH", client.objectURL(), headers: ["Content-Type": "application/json; charset=utf-8"],
            body: Data(JSONValue.object(changes).serialized()))
        return client.metadata(try client.json(response))
    }

    /// Changes the object's metadata as ``updateMetadata(_:)``, reporting to `completion` on the callback queue.
    /// - Parameters:
    ///   - metadata: the new fields.
    ///   - completion: called with the metadata after the change, or the error.
    public func updateMetadata(
        _ metadata: StorageMetadata,
        completion: ((_ metadata: StorageMetadata?, _ error: (any Error)?) -> Void)? = nil
    ) {
        storage.callbacks.complete(optionalCallbackQueueBound(completion)) { try await self.updateMetadata(metadata) }
    }

    /// Deletes the object.
    /// - Throws: ``StorageError`` `objectNotFound` when there is none.
    public func delete() async throws { _ = try await client.send("DELETE", client.objectURL()) }

    /// Deletes the object, reporting to `completion` on the callback queue.
    /// - Parameter completion: called with `nil`, or the error.
    public func delete(completion: ((_ error: (any Error)?) -> Void)?) {
        storage.callbacks.completeVoid(callbackQueueBound(completion)) { try await self.delete() }
    }

    /// A URL that downloads the object without credentials or rules, through its download token:
    /// `{server}/v0/b/{bucket}/o/{path}?alt=media&token=…`.
    /// - Throws: ``StorageError`` `objectNotFound`, `unauthorized`, or `unknown` when the object has no token.
    public func downloadURL() async throws -> URL {
        let metadata = try await client.fetchMetadata()
        guard let token = metadata.current.downloadTokens.first else {
            throw reference(.unknown, "The object has no download token.")
        }
        return client.objectURL([("alt", "media"), ("token", token)])
    }

    /// The download URL, passed to `completion` on the callback queue.
    /// - Parameter completion: called with the URL, or the error.
    public func downloadURL(completion: @escaping (_ url: URL?, _ error: (any Error)?) -> Void) {
        storage.callbacks.complete(callbackQueueBound(completion)) { try await self.downloadURL() }
    }

    private func reference(_ code: StorageErrorCode, _ message: String) -> StorageError { error(code, message) }

    /// One page of the files and folders directly under this reference.
    /// - Parameter maxResults: the page size, 1…1000.
    /// - Throws: ``StorageError`` `invalidArgument` for a page size outside 1…1000.
    public func list(maxResults: Int64) async throws -> StorageListResult {
        try await page(maxResults: maxResults, pageToken: nil)
    }

    /// The page after `pageToken`.
    /// - Parameters:
    ///   - maxResults: the page size, 1…1000.
    ///   - pageToken: a previous page's ``StorageListResult/pageToken``.
    public func list(maxResults: Int64, pageToken: String) async throws -> StorageListResult {
        try await page(maxResults: maxResults, pageToken: pageToken)
    }

    /// Every file and folder directly under this reference, however many pages that takes.
    public func listAll() async throws -> StorageListResult {
        var prefixes: [StorageReference] = []
        var items: [StorageReference] = []
        var token: String?
        repeat {
            let page = try await page(maxResults: nil, pageToken: token)
            prefixes += page.prefixes
            items += page.items
            token = page.pageToken
        } while token != nil
        return StorageListResult(prefixes: prefixes, items: items, pageToken: nil)
    }

    /// One page, passed to `completion` on the callback queue.
    /// - Parameters:
    ///   - maxResults: the page size, 1…1000.
    ///   - completion: called with the page, or the error.
    public func list(
        maxResults: Int64, completion: @escaping (_ result: StorageListResult?, _ error: (any Error)?) -> Void
    ) {
        storage.callbacks.complete(callbackQueueBound(completion)) { try await self.list(maxResults: maxResults) }
    }

    /// The page after `pageToken`, passed to `completion` on the callback queue.
    /// - Parameters:
    ///   - maxResults: the page size, 1…1000.
    ///   - pageToken: a previous page's token.
    ///   - completion: called with the page, or the error.
    public func list(
        maxResults: Int64, pageToken: String,
        completion: @escaping (_ result: StorageListResult?, _ error: (any Error)?) -> Void
    ) {
        storage.callbacks.complete(callbackQueueBound(completion)) {
            try await self.list(maxResults: maxResults, pageToken: pageToken)
        }
    }

    /// Everything under this reference, passed to `completion` on the callback queue.
    /// - Parameter completion: called with all pages together, or the error.
    public func listAll(completion: @escaping (_ result: StorageListResult?, _ error: (any Error)?) -> Void) {
        storage.callbacks.complete(callbackQueueBound(completion)) { try await self.listAll() }
    }

    private func page(maxResults: Int64?, pageToken: String?) async throws -> StorageListResult {
        if let maxResults, !(1...1000).contains(maxResults) {
            throw error(.invalidArgument, "maxResults must be between 1 and 1000, not \(maxResults).")
        }
        var query = [("prefix", fullPath.isEmpty ? "" : fullPath + "/"), ("delimiter", "/")]
        if let maxResults { query.append(("maxResults", String(maxResults))) }
        if let pageToken { query.append(("pageToken", pageToken)) }
        let json = try client.json(try await client.send("GET", client.objectsURL(query)))
        return StorageListResult(json: json, storage: storage, bucket: bucket)
    }
}
