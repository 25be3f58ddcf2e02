import Foundation
import HearthCore
import Synchronization

/// An upload — Hearth's `StorageUploadTask`, returned by `putData` and `putFile`, already started.
///
/// Up to 256 KiB go in one `multipart/related` request. Larger uploads use the resumable protocol: a session, then
/// chunks of ``Storage/uploadChunkSizeBytes``, each reported to `.progress` observers. ``pause()`` takes effect
/// after the chunk in flight; ``resume()`` asks the server how much it holds and continues from there. A chunk the
/// network lost is sent again from the server's offset until ``Storage/maxUploadRetryTime`` has passed.
public final class StorageUploadTask: StorageObservableTask, StorageTaskManagement, @unchecked Sendable {
    private let source: UploadSource
    private let fields: [String: JSONValue]
    private let control = TransferControl()
    /// The resumable session's URL, once started.
    private let session = Mutex<URL?>(nil)

    init(reference: StorageReference, source: UploadSource, metadata: StorageMetadata?) {
        self.source = source
        var fields = metadata?.current.writable ?? [:]
        if fields["contentType"] == nil, let inferred = source.inferredContentType {
            fields["contentType"] = .string(inferred)
        }
        self.fields = fields
        super.init(reference: reference)
    }

    /// Starts the upload (``StorageReference/putData(_:metadata:completion:)`` already did).
    public func enqueue() {
        control.start { [self] in await run() }
    }

    /// Pauses after the chunk in flight; `.pause` observers are called at once.
    public func pause() {
        if control.pause(stopAttempt: false) { move(to: .pause) }
    }

    /// Continues a paused upload; `.resume` observers are called.
    public func resume() {
        if control.resume() { move(to: .resume) }
    }

    /// Stops the upload and ends the server's session; observers hear `.failure` with `cancelled`.
    public func cancel() {
        if control.cancel() { fail(cancelledError) }
    }

    /// The uploaded object's metadata, once the upload succeeded.
    public var metadata: StorageMetadata? { state.withLock { $0.metadata } }

    private var client: StorageClient { StorageClient(reference: reference) }

    private func run() async {
        do {
            let size = try readSize()
            move(to: .progress, unlessPaused: true) { $0.total = size }
            // A task paused before it sent anything waits, whichever protocol it then speaks.
            _ = await control.waitWhilePaused()
            if control.isCancelled { throw cancelledError }
            let metadata =
                size <= Storage.chunkGranularity ? try await multipart(size: size) : try await resumable(size: size)
            move(to: .success) { state in
                state.completed = size
                state.metadata = metadata
            }
        } catch {
            if control.isCancelled {
                endSession()
                return fail(cancelledError)
            }
            fail(error as? StorageError ?? reference.error(.unknown, "\(error)"))
        }
    }

    private func readSize() throws -> Int64 {
        do {
            return try source.size()
        } catch {
            throw reference.error(.unknown, "The file to upload cannot be read: \(error.localizedDescription)")
        }
    }

    private func read(_ offset: Int64, _ length: Int64) throws -> Data {
        do {
            return try source.read(offset, length)
        } catch {
            throw reference.error(.unknown, "The file to upload cannot be read: \(error.localizedDescription)")
        }
    }

    private var contentType: String { fields["contentType"]?.stringValue ?? "application/octet-stream" }

    private var metadataJSON: Data {
        var object = fields
        object["name"] = .string(reference.fullPath)
        return Data(JSONValue.object(object).serialized())
    }

    /// One `multipart/related` request: the metadata JSON, then the bytes.
    private func multipart(size: Int64) async throws -> StorageMetadata {
        let boundary = "hearth-" + UUID().uuidString
        var body = Data("--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n".utf8)
        body.append(metadataJSON)
        body.append(Data("\r\n--\(boundary)\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
        body.append(try read(0, size))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        let response = try await client.send(
            "POST", client.objectsURL([("name", reference.fullPath)]),
            headers: [
                "Content-Type": "multipart/related; boundary=\(boundary)", "X-Goog-Upload-Protocol": "multipart",
            ], body: body)
        return client.metadata(try client.json(response))
    }

    /// The resumable protocol: `start`, then `upload` chunks, the last with `finalize`.
    private func resumable(size: Int64) async throws -> StorageMetadata {
        let session = try await startSession(size: size)
        var offset: Int64 = 0
        var mustQuery = false
        var lostSince: ContinuousClock.Instant?
        while true {
            if await control.waitWhilePaused() { mustQuery = true }
            if control.isCancelled { throw cancelledError }
            do {
                if mustQuery {
                    offset = try await query(session)
                    mustQuery = false
                }
                let length = min(reference.storage.uploadChunkSizeBytes, size - offset)
                let final = offset + length == size
                let response = try await chunk(session, offset: offset, bytes: try read(offset, length), final: final)
                lostSince = nil
                if response.headers["x-goog-upload-status"] == "final" || final {
                    return client.metadata(try client.json(response))
                }
                offset = response.headers["x-goog-upload-size-received"].flatMap { Int64($0) } ?? offset + length
                progressed(completed: offset, total: size)
            } catch let error as StorageError where error.unreachable && !control.isCancelled {
                let since = lostSince ?? .now
                lostSince = since
                let limit = Duration.milliseconds(Int64(reference.storage.maxUploadRetryTime * 1000))
                guard ContinuousClock.now - since < limit else {
                    throw reference.error(
                        .retryLimitExceeded,
                        "Max retry time for operation exceeded, please try again. (\(error.message))")
                }
                try? await Task.sleep(for: .milliseconds(250))
                mustQuery = true
            }
        }
    }

    private func startSession(size: Int64) async throws -> URL {
        let response = try await client.send(
            "POST", client.objectsURL([("name", reference.fullPath)]),
            headers: [
                "Content-Type": "application/json; charset=utf-8", "X-Goog-Upload-Protocol": "resumable",
                "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Type": contentType,
                "X-Goog-Upload-Header-Content-Length": String(size),
            ], body: metadataJSON)
        guard let text = response.headers["x-goog-upload-url"], let url = URL(string: text) else {
            throw reference.error(.unknown, "The server started no upload session (no X-Goog-Upload-URL).")
        }
        session.withLock { $0 = url }
        return url
    }

    /// How many bytes the session holds.
    private func query(_ session: URL) async throws -> Int64 {
        let response = try await client.send(
            "POST", session, headers: ["X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "query"])
        return response.headers["x-goog-upload-size-received"].flatMap { Int64($0) } ?? 0
    }

    private func chunk(_ session: URL, offset: Int64, bytes: Data, final: Bool) async throws -> TransportResponse {
        try await client.send(
            "POST", session,
            headers: [
                "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": final ? "upload, finalize" : "upload",
                "X-Goog-Upload-Offset": String(offset), "Content-Type": "application/octet-stream",
            ], body: bytes)
    }

    /// Ends the server's session of a cancelled upload, so its partial bytes go (best effort, in a task of its own:
    /// the upload's task is cancelled).
    private func endSession() {
        guard let url = session.withLock({ $0 }) else { return }
        let client = self.client
        Task {
            _ = try? await client.send(
                "POST", url, headers: ["X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "cancel"])
        }
    }
}
