import Foundation
import HearthCore

/// Where the file store keeps things under its directory: `storage.sqlite` (the metadata), `blobs/` (one file per
/// stored generation, named by a random ID), `tmp/` (uploads in progress).
///
/// Object names never become file names: a blob's path is built only from its random hexadecimal ID, so no name,
/// however crafted (`..`, `%2F`, NUL), can reach outside the directory.
struct StorageLayout: Sendable {
    let root: String

    var database: String { root + "/storage.sqlite" }
    var blobs: String { root + "/blobs" }
    var temporary: String { root + "/tmp" }

    /// Creates the directories that are missing.
    func create() throws(HearthError) {
        for directory in [root, blobs, temporary] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .internal("Cannot create the storage directory \(directory): \(error.localizedDescription)")
            }
        }
    }

    /// The path of the blob with `id`, which must be a blob ID (hexadecimal).
    func blobPath(_ id: String) -> String {
        precondition(Self.isBlobID(id), "not a blob ID")
        return blobs + "/" + id
    }

    /// A fresh path in `tmp/`.
    func temporaryPath(_ id: String) -> String {
        precondition(Self.isBlobID(id), "not a blob ID")
        return temporary + "/" + id
    }

    /// A new random blob ID: 32 hexadecimal digits.
    static func newBlobID() -> String {
        (0..<2).map { _ in
            let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Whether `text` has the shape of a blob ID, so only such names are ever joined to a directory path.
    static func isBlobID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// Closes a descriptor; a free function because inside `FileStore` the name `close` means its own method.
func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// Writes all of `bytes` to `descriptor`, retrying short writes and interruptions; the errno of a failure, or `nil`.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return nil
}
