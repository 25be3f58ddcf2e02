import Foundation
public import HearthCore

/// One upload's bytes on their way to disk: a file in `tmp/`, written chunk by chunk with its size, MD5 and CRC-32C
/// kept as it grows, so nothing is held in memory and nothing is read back.
///
/// `@unchecked Sendable` because an upload hands it from its HTTP thread to the thread that commits it; it is not
/// thread-safe, and its owner (an upload sink, behind a lock) uses it from one thread at a time.
public final class BlobWriter: @unchecked Sendable {
    /// The blob's ID, which becomes its name in `blobs/` when committed.
    let id: String
    let path: String
    private var descriptor: Int32
    /// Bytes written so far.
    public private(set) var size: Int = 0
    private let sums = RunningChecksums()
    private let maxBytes: Int

    init(layout: StorageLayout, maxBytes: Int) throws(HearthError) {
        id = StorageLayout.newBlobID()
        path = layout.temporaryPath(id)
        self.maxBytes = maxBytes
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageErrors.io("create an upload file", errno) }
    }

    deinit { abandon() }

    /// Appends `bytes`. On failure the file is removed, so nothing half-written stays behind.
    ///
    /// - Throws: `RESOURCE_EXHAUSTED` when the disk is full, `INVALID_ARGUMENT` past the maximum object size.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(HearthError) {
        guard descriptor >= 0 else { throw .failedPrecondition("The upload was already finished or abandoned.") }
        guard size + bytes.count <= maxBytes else {
            abandon()
            throw StorageErrors.tooLarge(maxBytes)
        }
        if let code = writeAll(descriptor, bytes) {
            abandon()
            throw StorageErrors.io("write an upload", code)
        }
        sums.update(bytes)
        size += bytes.count
    }

    /// Flushes the bytes to the disk (fsync) and closes the file; what `commit` needs before the rename.
    func seal() throws(HearthError) -> (size: Int, md5: String, crc32c: String) {
        guard descriptor >= 0 else { throw .failedPrecondition("The upload was already finished or abandoned.") }
        if fsync(descriptor) != 0 {
            let code = errno
            abandon()
            throw StorageErrors.io("flush an upload", code)
        }
        close(descriptor)
        descriptor = -1
        let (_, md5, crc32c) = sums.finish()
        return (size, md5, crc32c)
    }

    /// Drops the upload: closes and removes its file. Idempotent.
    public func abandon() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(path)
    }
}
