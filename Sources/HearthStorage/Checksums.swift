import Foundation
import HearthCore
import HearthCrypto

/// Size, MD5 and CRC-32C of a file, read in 1 MiB pieces so memory stays flat with the file's size.
enum Checksums {
    static func ofFile(at path: String) throws(HearthError) -> (size: Int64, md5: String, crc32c: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StorageErrors.io("read an upload", errno) }
        defer { close(descriptor) }
        let md5 = IncrementalMD5()
        var crc = CRC32C()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageErrors.io("read an upload", errno)
            }
            if count == 0 { break }
            let piece = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            md5.update(piece)
            crc.update(piece)
            size += Int64(count)
        }
        return (size, Base64URL.encodeStandard(md5.finish()), crc.base64)
    }
}
