import Foundation
import HearthCore
import Synchronization

/// A download — Hearth's `StorageDownloadTask`, returned by `getData` and `write(toFile:)`, already started.
///
/// It reads the object's metadata first (so a `getData` whose object is larger than `maxSize` fails with
/// `downloadSizeExceeded` before any byte moves), then streams the bytes, telling `.progress` observers as they
/// arrive. ``pause()`` stops the transfer; ``resume()`` continues it with a `Range` request from the bytes held.
public final class StorageDownloadTask: StorageObservableTask, StorageTaskManagement, @unchecked Sendable {
    /// Where the bytes go.
    enum Destination: Sendable {
        case memory(maxSize: Int64)
        case file(URL)
    }

    private let destination: Destination
    private let control = TransferControl()
    private let received = Mutex(Received())

    private struct Received {
        var data = Data()
        var file: FileHandle?
        var count: Int64 = 0
    }

    /// The bytes downloaded into memory, once a `getData` succeeded.
    let result = Mutex<Data?>(nil)

    init(reference: StorageReference, destination: Destination) {
        self.destination = destination
        super.init(reference: reference)
    }

    /// Starts the download (`getData` and `write(toFile:)` already did).
    public func enqueue() {
        control.start { [self] in await run() }
    }

    /// Stops the transfer; `.pause` observers are called.
    public func pause() {
        guard control.pause(stopAttempt: true) else { return }
        // The bytes held from here on are what resumes with a range request; the `.pause` snapshot says so, even
        // when the last progress event was up to 256 KiB before.
        let held = received.withLock { $0.count }
        move(to: .pause) { $0.completed = held }
    }

    /// Continues from the bytes already received; `.resume` observers are called.
    public func resume() {
        if control.resume() { move(to: .resume) }
    }

    /// Stops the download; observers hear `.failure` with `cancelled`.
    public func cancel() {
        if control.cancel() { fail(cancelledError) }
    }

    private var client: StorageClient { StorageClient(reference: reference) }

    private func run() async {
        var temporary: URL?
        do {
            let metadata = try await client.fetchMetadata()
            let total = metadata.size
            if case .memory(let maxSize) = destination, total > maxSize {
                throw tooLarge(total, maxSize)
            }
            if case .file(let url) = destination { temporary = try openFile(for: url) }
            move(to: .progress, unlessPaused: true) { state in
                state.total = total
                state.metadata = metadata
            }
            try await transfer(total: total)
            try finish(temporary: temporary)
            move(to: .success) { $0.completed = total }
        } catch {
            closeFile()
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            if control.isCancelled { return fail(cancelledError) }
            fail(error as? StorageError ?? reference.error(.unknown, "\(error)"))
        }
    }

    /// Streams the bytes, again from where it stopped after each pause.
    private func transfer(total: Int64) async throws {
        while true {
            let offset = received.withLock { $0.count }
            if offset >= total && total > 0 { return }
            _ = await control.waitWhilePaused()
            if control.isCancelled { throw cancelledError }
            let pauses = control.pauses
            do {
                try await control.attempt { [self] in try await stream(from: offset, total: total) }
                if control.pauses == pauses {
                    let count = received.withLock { $0.count }
                    if count >= total { return }
                    throw reference.error(.unknown, "The download ended after \(count) of \(total) bytes.")
                }
            } catch  where control.pauses != pauses && !control.isCancelled {
                // Stopped by a pause: wait, then continue with a range request.
            }
            _ = await control.waitWhilePaused()
            if control.isCancelled { throw cancelledError }
        }
    }

    private func stream(from offset: Int64, total: Int64) async throws {
        var headers = try await client.authorization()
        if offset > 0 { headers["Range"] = "bytes=\(offset)-" }
        let request = TransportRequest(method: "GET", url: client.objectURL([("alt", "media")]), headers: headers)
        let chunks: AsyncThrowingStream<Data, any Error>
        do {
            chunks = try await reference.storage.app.transport.stream(request)
        } catch {
            throw client.unreachable(error.localizedDescription)
        }
        var reported = offset
        do {
            for try await chunk in chunks {
                // Paused: stop taking bytes at once; the rest comes again with a range request.
                guard let count = try keep(chunk) else { break }
                if count - reported >= 256 << 10 || count == total {
                    reported = count
                    progressed(completed: count, total: total)
                }
            }
        } catch let error as FirestoreErrorCode {
            throw client.failure(Self.code(error.code), detail: error.message)
        }
    }

    /// Adds `chunk` to the destination and returns the bytes held; `nil`, keeping nothing, once paused. The pause is
    /// judged under the same lock ``pause()`` reads the bytes held under, so no chunk slips in after it counted.
    private func keep(_ chunk: Data) throws -> Int64? {
        try received.withLock { received in
            if control.isPaused { return nil }
            received.count += Int64(chunk.count)
            switch destination {
            case .memory(let maxSize):
                guard received.count <= maxSize else { throw tooLarge(received.count, maxSize) }
                received.data.append(chunk)
            case .file:
                try received.file?.write(contentsOf: chunk)
            }
            return received.count
        }
    }

    private func tooLarge(_ total: Int64, _ maxSize: Int64) -> StorageError {
        reference.error(
            .downloadSizeExceeded,
            "Attempted to download object with size of \(total) bytes, which exceeds the maximum size of \(maxSize) "
                + "bytes. Consider raising the maximum download size, or using StorageReference.write.")
    }

    /// Opens a temporary file beside `url` (created with its directory), which ``finish(temporary:)`` moves into
    /// place.
    private func openFile(for url: URL) throws -> URL {
        do {
            let directory = url.deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).part")
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: temporary)
            received.withLock { $0.file = handle }
            return temporary
        } catch {
            throw reference.error(.unknown, "Cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    private func closeFile() {
        let handle = received.withLock { received -> FileHandle? in
            defer { received.file = nil }
            return received.file
        }
        try? handle?.close()
    }

    private func finish(temporary: URL?) throws {
        closeFile()
        switch destination {
        case .memory:
            let data = received.withLock { $0.data }
            result.withLock { $0 = data }
        case .file(let url):
            guard let temporary else { return }
            do {
                if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
                try FileManager.default.moveItem(at: temporary, to: url)
            } catch {
                throw reference.error(.unknown, "Cannot write \(url.path): \(error.localizedDescription)")
            }
        }
    }

    /// The Storage code of a streamed answer's refusal.
    static func code(_ code: FirestoreErrorCode.Code) -> StorageErrorCode {
        switch code {
        case .notFound: .objectNotFound
        case .permissionDenied: .unauthorized
        case .unauthenticated: .unauthenticated
        case .resourceExhausted: .quotaExceeded
        default: .unknown
        }
    }
}
