import Foundation
public import HearthCore
import HearthSQLite
import Synchronization

/// Files on disk with their metadata in SQLite: the storage engine behind the Storage APIs.
///
/// The one write order, so a crash never shows a partial file: bytes go to `tmp/`, are fsynced, renamed into
/// `blobs/` (and the directory fsynced), and only then the metadata row commits. A crash before the commit leaves a
/// blob no row names, which the next `open` removes with everything in `tmp/`; a half-uploaded file is never
/// visible because no row points at it. A blob is removed once no row refers to it.
public final class FileStore: Sendable {
    /// What the store is opened with.
    public struct Configuration: Sendable {
        /// The storage directory (the data directory's `storage/`).
        public var directory: String
        /// The largest object accepted, in bytes.
        public var maxObjectBytes: Int = 5 << 40
        /// How long a resumable upload session lives (a week, as Firebase's).
        public var sessionLifetime: Duration = .seconds(7 * 24 * 3600)
        /// The data directory's disk reserve (`hearth.reserve`), given up when a full disk refuses a delete so the
        /// delete can free space; `nil` keeps none.
        public var diskReservePath: String?
        /// Its size.
        public var diskReserveBytes: Int = 16 << 20
        /// The wall clock (generations, object times, session expiry); tests move it.
        public var clock: WallClock = .system
        /// Objects kept where every node reads them (PostgreSQL); `nil` keeps them in this directory alone.
        package var shared: (any SharedObjects)?

        /// The defaults for `directory`.
        public init(directory: String) {
            self.directory = directory
        }
    }

    /// The configuration it was opened with.
    public let configuration: Configuration
    let layout: StorageLayout
    /// The one connection: every statement is short (no bytes pass through SQLite), so one serialised connection
    /// serves reads and writes alike.
    let database: Mutex<SQLiteConnection>
    /// The last generation handed out, so two writes in the same microsecond still differ.
    private let lastGeneration = Atomic<Int64>(0)

    /// Opens (creating if needed) the store in `configuration.directory` and removes what a crash left behind.
    public init(configuration: Configuration) throws(HearthError) {
        self.configuration = configuration
        layout = StorageLayout(root: configuration.directory)
        try layout.create()
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: layout.database)
            try SQLiteMigrator.migrate(connection, migrations: StorageSchema.migrations)
        } catch {
            throw .internal("Cannot open the storage database \(layout.database): \(error)")
        }
        database = Mutex(connection)
        try sweep()
    }

    /// Closes the database.
    public func close() {
        database.withLock { $0.close() }
    }

    /// Runs `body` on the connection, turning SQLite's errors into internal errors.
    func withDatabase<T>(freesSpace: Bool = false, _ body: (SQLiteConnection) throws -> T) throws(HearthError) -> T {
        do {
            do {
                return try database.withLock { try body($0) }
            } catch  where freesSpace && DiskReserve.isDiskFull(error) {
                // A delete the full disk refused is tried once more in the space the reserve gives up.
                guard let path = configuration.diskReservePath,
                    DiskReserve.shared(path: path, bytes: configuration.diskReserveBytes).release()
                else { throw error }
                return try database.withLock { try body($0) }
            }
        } catch let error as HearthError {
            throw error
        } catch  where DiskReserve.isDiskFull(error) {
            throw HearthError(.unavailable, "The disk is full: nothing was changed (\(error)).")
        } catch {
            throw .internal("Storage database: \(error)")
        }
    }

    // MARK: - Writing

    /// A new upload file in `tmp/`, bounded by the maximum object size.
    public func makeWriter() throws(HearthError) -> BlobWriter {
        try BlobWriter(layout: layout, maxBytes: configuration.maxObjectBytes)
    }

    /// Makes `writer`'s bytes the object `name` in `bucket` with `attributes`: fsync, rename, then the row. The
    /// previous generation's bytes are removed afterwards. On any failure nothing is stored.
    ///
    /// - Parameter ifGenerationMatch: when given, the write happens only if the current generation is this one (0:
    ///   only if there is no object), else `FAILED_PRECONDITION`.
    public func commit(
        _ writer: BlobWriter, bucket: String, name: String, attributes: ObjectAttributes,
        ifGenerationMatch: Int64? = nil
    ) throws(HearthError) -> StoredObject {
        do {
            try ObjectName.validate(name)
        } catch {
            writer.abandon()
            throw error
        }
        let sealed = try writer.seal()
        return try place(
            blobAt: writer.path, blobID: writer.id, size: sealed.size, md5: sealed.md5, crc32c: sealed.crc32c,
            bucket: bucket, name: name, attributes: attributes, ifGenerationMatch: ifGenerationMatch)
    }

    /// Stores `bytes` already in memory (a multipart upload's file part) as the object, by the same write path.
    public func put(
        _ bytes: [UInt8], bucket: String, name: String, attributes: ObjectAttributes
    ) throws(HearthError) -> StoredObject {
        let writer = try makeWriter()
        let failure = bytes.withUnsafeBytes { buffer -> HearthError? in
            do throws(HearthError) {
                try writer.write(buffer)
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            writer.abandon()
            throw failure
        }
        return try commit(writer, bucket: bucket, name: name, attributes: attributes)
    }

    /// Renames a sealed file into `blobs/` and commits its row; removes the blob if the row cannot commit.
    func place(
        blobAt path: String, blobID: String, size: Int, md5: String, crc32c: String, bucket: String, name: String,
        attributes: ObjectAttributes, ifGenerationMatch: Int64?
    ) throws(HearthError) -> StoredObject {
        let blobPath = layout.blobPath(blobID)
        guard rename(path, blobPath) == 0 else {
            let code = errno
            unlink(path)
            throw StorageErrors.io("store an upload", code)
        }
        syncDirectory(layout.blobs)
        let object = newObject(
            bucket: bucket, name: name, blobID: blobID, size: Int64(size), md5: md5, crc32c: crc32c,
            attributes: attributes)
        let replaced: String?
        do {
            if let shared = configuration.shared {
                replaced = try shared.place(object, bytesAt: blobPath, ifGenerationMatch: ifGenerationMatch)
            } else {
                replaced = try withDatabase { db throws -> String? in
                    try db.transaction(.immediate) { () throws -> String? in
                        let previous = try ObjectRows.fetch(db, bucket: bucket, name: name)
                        if let expected = ifGenerationMatch, expected != (previous?.generation ?? 0) {
                            throw HearthError(
                                .failedPrecondition,
                                "The object's generation does not match the precondition ifGenerationMatch=\(expected)."
                            )
                        }
                        try ObjectRows.upsert(db, object)
                        return previous?.blobID
                    }
                }
            }
        } catch {
            unlink(blobPath)
            throw error
        }
        if let replaced { try? removeBlobIfUnreferenced(replaced) }
        return object
    }

    /// The first metageneration of a new generation of `name`, with a fresh download token, created now.
    func newObject(
        bucket: String, name: String, blobID: String, size: Int64, md5: String, crc32c: String,
        attributes: ObjectAttributes
    ) -> StoredObject {
        let now = nowMillis()
        return StoredObject(
            bucket: bucket, name: name, generation: nextGeneration(), metageneration: 1, size: size, md5Hash: md5,
            crc32c: crc32c, attributes: attributes, downloadTokens: [UUID().uuidString.lowercased()],
            timeCreatedMillis: now, updatedMillis: now, blobID: blobID)
    }

    /// Copies the object `source` to `destination` (sharing its bytes: a hard link) with new or copied attributes.
    public func copy(
        bucket: String, name: String, toBucket: String, toName: String, attributes: ObjectAttributes?
    ) throws(HearthError) -> StoredObject {
        try ObjectName.validate(toName)
        guard let source = try object(bucket: bucket, name: name) else { throw StorageErrors.notFound(name) }
        try cacheBlob(of: source)
        let id = StorageLayout.newBlobID()
        let temporary = layout.temporaryPath(id)
        guard link(layout.blobPath(source.blobID), temporary) == 0 else {
            throw StorageErrors.io("copy an object", errno)
        }
        return try place(
            blobAt: temporary, blobID: id, size: Int(source.size), md5: source.md5Hash, crc32c: source.crc32c,
            bucket: toBucket, name: toName, attributes: attributes ?? source.attributes, ifGenerationMatch: nil)
    }

    // MARK: - Reading

    /// The object, or `nil`.
    public func object(bucket: String, name: String) throws(HearthError) -> StoredObject? {
        if let shared = configuration.shared { return try shared.object(bucket: bucket, name: name) }
        return try withDatabase { db in try ObjectRows.fetch(db, bucket: bucket, name: name) }
    }

    /// An open read-only descriptor on the object's bytes, which the caller owns. Opened under the database lock,
    /// so a concurrent delete cannot remove the blob between the lookup and the open; once open, the bytes stay
    /// readable even if the object is deleted meanwhile.
    public func openBytes(of object: StoredObject) throws(HearthError) -> Int32 {
        let path = layout.blobPath(object.blobID)
        try cacheBlob(of: object)
        var descriptor = database.withLock { _ in open(path, O_RDONLY | O_CLOEXEC) }
        if descriptor < 0, errno == ENOENT, configuration.shared != nil {
            // A delete on this node removed the cached bytes between the fetch and the open: fetch once more (the
            // object's blob is gone too when the object was deleted: NOT_FOUND).
            try cacheBlob(of: object)
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
        }
        guard descriptor >= 0 else { throw StorageErrors.io("open an object", errno) }
        return descriptor
    }

    /// With shared objects, puts the object's bytes in `blobs/` unless they are there already: streamed from the
    /// shared database into `tmp/`, then renamed (two nodes fetching one blob write the same bytes). A blob never
    /// changes, so a cached one is never stale.
    func cacheBlob(of object: StoredObject) throws(HearthError) {
        guard let shared = configuration.shared else { return }
        let path = layout.blobPath(object.blobID)
        guard access(path, F_OK) != 0 else { return }
        let temporary = layout.temporaryPath(StorageLayout.newBlobID())
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageErrors.io("cache an object", errno) }
        do {
            try shared.writeBlob(object.blobID, to: descriptor)
        } catch {
            closeDescriptor(descriptor)
            unlink(temporary)
            throw error.code == .notFound ? StorageErrors.notFound(object.name) : error
        }
        closeDescriptor(descriptor)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw StorageErrors.io("cache an object", code)
        }
    }

    // MARK: - Changing and deleting

    /// Deletes the object and then its bytes; `false` when there was none.
    @discardableResult
    public func delete(bucket: String, name: String) throws(HearthError) -> Bool {
        if let shared = configuration.shared {
            guard let removed = try shared.delete(bucket: bucket, name: name) else { return false }
            try removeBlobIfUnreferenced(removed)
            return true
        }
        let removed = try withDatabase(freesSpace: true) { db throws -> String? in
            try db.transaction(.immediate) { () throws -> String? in
                guard let object = try ObjectRows.fetch(db, bucket: bucket, name: name) else { return nil }
                try db.execute("DELETE FROM objects WHERE bucket = \(bucket) AND name = \(name)")
                return object.blobID
            }
        }
        guard let removed else { return false }
        try removeBlobIfUnreferenced(removed)
        return true
    }

    /// Applies `change` to the object's metadata and bumps its metageneration.
    public func updateMetadata(
        bucket: String, name: String, _ change: @Sendable (inout StoredObject) throws(HearthError) -> Void
    ) throws(HearthError) -> StoredObject {
        let now = nowMillis()
        func apply(_ object: inout StoredObject) throws(HearthError) {
            let blobID = object.blobID
            let generation = object.generation
            try change(&object)
            object.metageneration += 1
            object.updatedMillis = now
            precondition(object.blobID == blobID && object.generation == generation)
        }
        if let shared = configuration.shared { return try shared.update(bucket: bucket, name: name, apply) }
        return try withDatabase { db throws -> StoredObject in
            try db.transaction(.immediate) { () throws -> StoredObject in
                guard var object = try ObjectRows.fetch(db, bucket: bucket, name: name) else {
                    throw StorageErrors.notFound(name)
                }
                try apply(&object)
                try ObjectRows.upsert(db, object)
                return object
            }
        }
    }

    // MARK: - Housekeeping

    /// Removes the blob once no row names it (a copy may share its bytes under another name).
    func removeBlobIfUnreferenced(_ id: String) throws(HearthError) {
        // Shared objects never share a blob (a copy's bytes get an ID of their own), and the shared store removed
        // the bytes with the row: only this node's cached copy is left.
        if configuration.shared != nil {
            unlink(layout.blobPath(id))
            return
        }
        try withDatabase { db in
            let objects = try db.fetchOne("SELECT 1 FROM objects WHERE blob = \(id) LIMIT 1")
            let sessions = try db.fetchOne("SELECT 1 FROM upload_sessions WHERE blob = \(id) LIMIT 1")
            if objects == nil && sessions == nil { unlink(layout.blobPath(id)) }
        }
    }

    /// What a crash left: every `tmp/` file no live upload session owns, every blob no row names, expired sessions.
    /// With shared objects no row here names a blob, so the cache of their bytes starts empty, and the shared
    /// sessions that expired go with their bytes.
    func sweep() throws(HearthError) {
        let now = nowMillis()
        // Housekeeping that the next session started on any node does again: a database out of reach now does not
        // keep this node from starting.
        _ = try? configuration.shared?.sweepSessions(nowMillis: now)
        let (referenced, sessionFiles) = try withDatabase { db throws -> (Set<String>, Set<String>) in
            try db.execute("DELETE FROM upload_sessions WHERE expires_ms < \(now)")
            let blobs = try db.fetchAll("SELECT blob FROM objects").compactMap { $0.string(0) }
            let sessions = try db.fetchAll("SELECT blob FROM upload_sessions").compactMap { $0.string(0) }
            return (Set(blobs), Set(sessions))
        }
        let files = FileManager.default
        for entry in (try? files.contentsOfDirectory(atPath: layout.temporary)) ?? []
        where !(StorageLayout.isBlobID(entry) && sessionFiles.contains(entry)) {
            unlink(layout.temporary + "/" + entry)
        }
        for entry in (try? files.contentsOfDirectory(atPath: layout.blobs)) ?? []
        where !(StorageLayout.isBlobID(entry) && referenced.contains(entry)) {
            unlink(layout.blobs + "/" + entry)
        }
    }

    /// A generation: microseconds since 1970, strictly increasing within this process.
    func nextGeneration() -> Int64 {
        let now = configuration.clock.microseconds
        while true {
            let last = lastGeneration.load(ordering: .relaxed)
            let next = max(now, last + 1)
            if lastGeneration.compareExchange(expected: last, desired: next, ordering: .relaxed).exchanged {
                return next
            }
        }
    }

    /// The configured clock, in milliseconds (what object times and session expiry hold).
    func nowMillis() -> Int64 { configuration.clock.milliseconds }

    /// Makes a rename durable: fsync on the directory that holds the new name.
    private func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        closeDescriptor(descriptor)
    }
}

extension StorageErrors {
    static func notFound(_ name: String) -> HearthError {
        .notFound("No object named \(name.prefix(200)).")
    }
}
