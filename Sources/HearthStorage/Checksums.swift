import Foundation
import HearthCore
import HearthCrypto

/// Size, MD5 and CRC-32C of bytes that come piece by piece (a file read in pieces, an upload as it streams, a shared
/// blob chunk by chunk), so memory stays flat with the size: the one place Storage's checksums are computed.
package final class RunningChecksums {
    private let md5 = IncrementalMD5()
    private var crc = CRC32C()
    /// Bytes added so far.
    package private(set) var size: Int64 = 0

    /// No bytes yet.
    package init() {}

    /// Adds `bytes`.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        md5.update(bytes)
        crc.update(bytes)
        size += Int64(bytes.count)
    }

    /// The size and the checksums as Cloud Storage shows them (base64); call once, after the last `update`.
    package func finish() -> (size: Int64, md5: String, crc32c: String) {
        (size, Base64URL.encodeStandard(md5.finish()), crc.base64)
    }
}

/// Size, MD5 and CRC-32C of a file, read in 1 MiB pieces.
enum Checksums {
    static func ofFile(at path: String) throws(HearthError) -> (size: Int64, md5: String, crc32c: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StorageErrors.io("read an upload", errno) }
        defer { close(descriptor) }
        let sums = RunningChecksums()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageErrors.io("read an upload", errno)
            }
            if count == 0 { break }
            sums.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return sums.finish()
    }
}
