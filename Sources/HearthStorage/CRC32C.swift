internal import CHearthChecksum
import HearthCore

/// CRC-32C (Castagnoli, RFC 3720 §B.4), the checksum Cloud Storage reports as `crc32c`, computed as bytes stream in.
struct CRC32C {
    /// The checksum of everything added so far.
    private(set) var value: UInt32 = 0

    /// Adds `bytes`.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = hearth_crc32c_update(value, base, bytes.count)
    }

    /// As Cloud Storage shows it: the four big-endian bytes in base64.
    var base64: String {
        Base64URL.encodeStandard([
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ])
    }
}
