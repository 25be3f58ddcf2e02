import Foundation
public import HearthCore
import HearthSQLite

/// A resumable upload in progress: where it will land and how many bytes are safely on disk.
public struct UploadSession: Sendable, Equatable {
    /// The session ID, part of the upload URL.
    public var id: String
    /// The target bucket.
    public var bucket: String
    /// The target object name.
    public var name: String
    /// Bytes received and flushed to disk (or stored in the shared database); the next chunk must start here.
    public var received: Int64
    /// The attributes the object will get.
    public var attributes: ObjectAttributes
    /// When the session expires, in milliseconds since 1970.
    public var expiresMillis: Int64
    let blobID: String
}

extension FileStore {
    /// Starts a resumable upload of `name` in `bucket`: an empty file in `tmp/` and a session row (with shared
    /// objects, a session row in the shared database, after sweeping the expired ones there).
    public func startSession(
        bucket: String, name: String, attributes: ObjectAttributes
    ) throws(HearthError)
        -> UploadSession
    {
        try ObjectName.validate(name)
        let blobID = StorageLayout.newBlobID()
        let now = nowMillis()
        let session = UploadSession(
            id: StorageLayout.newBlobID(), bucket: bucket, name: name, received: 0, attributes: attributes,
            expiresMillis: now + configuration.sessionLifetime.components.seconds * 1000, blobID: blobID)
        if let shared = configuration.shared {
            // Every node starts sessions, so the sessions abandoned on any are swept by whichever starts the next.
            try shared.sweepSessions(nowMillis: now)
            try shared.startSession(session)
            return session
        }
        let path = layout.temporaryPath(blobID)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageErrors.io("create an upload file", errno) }
        closeDescriptor(descriptor)
        let attributesJSON = attributes.sessionJSON
        do {
            try withDatabase { db in
                try db.execute(
                    """
                    INSERT INTO upload_sessions (id, bucket, name, blob, received, attributes, expires_ms)
                    VALUES (\(session.id), \(bucket), \(name), \(blobID), 0, \(attributesJSON), \(session.expiresMillis))
                    """)
            }
        } catch {
            unlink(path)
            throw error
        }
        return session
    }

    /// The live session `id`, or `nil` (unknown, finished, cancelled or expired).
    public func session(_ id: String) throws(HearthError) -> UploadSession? {
        guard StorageLayout.isBlobID(id) else { return nil }
        let now = nowMillis()
        if let shared = configuration.shared { return try shared.session(id, nowMillis: now) }
        return try withDatabase { db throws -> UploadSession? in
            guard
                let row = try db.fetchOne(
                    """
                    SELECT id, bucket, name, blob, received, attributes, expires_ms FROM upload_sessions
                    WHERE id = \(id) AND expires_ms >= \(now)
                    """)
            else { return nil }
            return UploadSession(
                id: row.string(0) ?? id, bucket: row.string(1) ?? "", name: row.string(2) ?? "",
                received: row.int64(4) ?? 0, attributes: ObjectAttributes(sessionJSON: row.string(5)),
                expiresMillis: row.int64(6) ?? now, blobID: row.string(3) ?? "")
        }
    }

    /// An appender for the next chunk of `session`, which must start at its `received` offset. With shared objects
    /// the chunk is staged in a nameless file of its own in `tmp/` and goes to the shared database when it is finished.
    public func appender(for session: UploadSession) throws(HearthError) -> SessionAppender {
        if configuration.shared != nil {
            return try SessionAppender(
                staging: layout.temporaryPath(StorageLayout.newBlobID()), session: session,
                maxBytes: configuration.maxObjectBytes)
        }
        return try SessionAppender(
            path: layout.temporaryPath(session.blobID), session: session, maxBytes: configuration.maxObjectBytes)
    }

    /// Stores a staged chunk of `count` bytes, read from `descriptor`'s start, in the shared session.
    func recordShared(
        _ session: UploadSession, count: Int64, from descriptor: Int32
    ) throws(HearthError) -> ChunkOutcome {
        guard let shared = configuration.shared else { throw .internal("The upload session is not shared.") }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw StorageErrors.io("read an upload chunk", errno) }
        return try shared.append(to: session, count: count, from: descriptor, nowMillis: nowMillis())
    }

    /// Records a flushed chunk: the session now has `received` bytes.
    func recordReceived(_ session: UploadSession, received: Int64) throws(HearthError) {
        try withDatabase { db in
            try db.execute("UPDATE upload_sessions SET received = \(received) WHERE id = \(session.id)")
        }
    }

    /// Ends `session` by committing its bytes as the object: checksums read back from the file, fsync, rename, then
    /// the object row and the session's removal.
    /// With shared objects the checksums are computed over the bytes the shared database holds, and the session's
    /// blob becomes the object's, in one transaction.
    public func finalize(_ session: UploadSession) throws(HearthError) -> StoredObject {
        if let shared = configuration.shared {
            let (object, replaced) = try shared.finish(session, nowMillis: nowMillis()) { size, md5, crc32c in
                newObject(
                    bucket: session.bucket, name: session.name, blobID: session.blobID, size: size, md5: md5,
                    crc32c: crc32c, attributes: session.attributes)
            }
            if let replaced { try? removeBlobIfUnreferenced(replaced) }
            return object
        }
        let path = layout.temporaryPath(session.blobID)
        let sums = try Checksums.ofFile(at: path)
        guard sums.size == session.received else {
            throw .internal("The upload file holds \(sums.size) bytes; the session recorded \(session.received).")
        }
        let blobID = StorageLayout.newBlobID()
        // Renamed first to a new ID, so the session row no longer protects it in a sweep, then placed.
        let sealed = layout.temporaryPath(blobID)
        guard rename(path, sealed) == 0 else { throw StorageErrors.io("finish an upload", errno) }
        try? withDatabase { db in try db.execute("DELETE FROM upload_sessions WHERE id = \(session.id)") }
        return try place(
            blobAt: sealed, blobID: blobID, size: Int(sums.size), md5: sums.md5, crc32c: sums.crc32c,
            bucket: session.bucket, name: session.name, attributes: session.attributes, ifGenerationMatch: nil)
    }

    /// Cancels `session` and removes its bytes; `false` when it was not live.
    @discardableResult
    public func cancel(_ session: UploadSession) throws(HearthError) -> Bool {
        if let shared = configuration.shared { return try shared.cancelSession(session.id) }
        let removed = try withDatabase { db -> Bool in
            try db.execute("DELETE FROM upload_sessions WHERE id = \(session.id)")
            return db.changes > 0
        }
        unlink(layout.temporaryPath(session.blobID))
        return removed
    }
}

/// Writes one chunk of a resumable upload onto the end of its file.
///
/// `@unchecked Sendable` for the same reason as `BlobWriter`: handed between threads, used by one at a time.
public final class SessionAppender: @unchecked Sendable {
    private var descriptor: Int32
    private let session: UploadSession
    private let maxBytes: Int
    /// Whether this chunk is staged in a file of its own (a shared session's), rather than appended to the
    /// session's file.
    private let staged: Bool
    /// Bytes written by this chunk.
    public private(set) var written: Int64 = 0

    init(path: String, session: UploadSession, maxBytes: Int) throws(HearthError) {
        self.session = session
        self.maxBytes = maxBytes
        staged = false
        descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StorageErrors.io("open an upload file", errno) }
        // A crash may have left bytes past what the session recorded; they are cut off and sent again.
        guard ftruncate(descriptor, off_t(session.received)) == 0, lseek(descriptor, 0, SEEK_END) >= 0 else {
            let code = errno
            close(descriptor)
            throw StorageErrors.io("open an upload file", code)
        }
    }

    /// A chunk of a shared session, written to a new file at `staging` until it is finished. The file's name is
    /// removed at once: only the descriptor holds it, so its space is freed when the chunk is stored or dropped, or
    /// the process dies, however late the HTTP server learns that a client went away.
    init(staging: String, session: UploadSession, maxBytes: Int) throws(HearthError) {
        self.session = session
        self.maxBytes = maxBytes
        staged = true
        descriptor = open(staging, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageErrors.io("create an upload chunk", errno) }
        unlink(staging)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(HearthError) {
        guard descriptor >= 0 else { throw .failedPrecondition("The chunk was already finished.") }
        guard Int(session.received + written) + bytes.count <= maxBytes else {
            discard()
            throw StorageErrors.tooLarge(maxBytes)
        }
        if let code = writeAll(descriptor, bytes) {
            discard()
            throw StorageErrors.io("write an upload", code)
        }
        written += Int64(bytes.count)
    }

    /// Flushes the chunk and records it in the session; returns the session's new `received`.
    /// - Throws: `ABORTED` when another chunk was stored first (only a shared session sees that; `record` says
    ///   where it stands then).
    public func finish(in store: FileStore) throws(HearthError) -> Int64 {
        switch try record(in: store) {
        case .recorded(let received): return received
        case .moved(let received):
            throw HearthError(
                .aborted, "Another chunk was stored first: the session has \(received) bytes; send from there.")
        }
    }

    /// Flushes the chunk and records it in the session: the session's new size, or, for a shared session another
    /// chunk reached first, its size then (this chunk is dropped).
    public func record(in store: FileStore) throws(HearthError) -> ChunkOutcome {
        guard descriptor >= 0 else { throw .failedPrecondition("The chunk was already finished.") }
        if staged {
            // The shared database's commit makes the chunk durable; the staged file is only read back.
            defer { discard() }
            return try store.recordShared(session, count: written, from: descriptor)
        }
        if fsync(descriptor) != 0 {
            let code = errno
            discard()
            throw StorageErrors.io("flush an upload", code)
        }
        close(descriptor)
        descriptor = -1
        let received = session.received + written
        try store.recordReceived(session, received: received)
        return .recorded(received)
    }

    /// Drops this chunk's bytes, keeping what the session had before it.
    public func discard() {
        guard descriptor >= 0 else { return }
        // A staged chunk's file has no name: closing it frees it.
        if !staged { _ = ftruncate(descriptor, off_t(session.received)) }
        close(descriptor)
        descriptor = -1
    }
}
