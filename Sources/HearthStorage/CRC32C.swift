import HearthCore

/// CRC-32C (Castagnoli, RFC 3720 §B.4), the checksum Cloud Storage reports as `crc32c`, computed as bytes stream in.
struct CRC32C {
    private var state: UInt32 = 0xFFFF_FFFF

    /// Adds `bytes`, eight at a time through the sliced tables (a byte-at-a-time loop is several times slower).
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        var index = 0
        let count = bytes.count
        CRC32C.tables.withUnsafeBufferPointer { table in
            while count - index >= 8 {
                let low =
                    crc
                    ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                        | UInt32(bytes[index + 3]) << 24)
                let high =
                    UInt32(bytes[index + 4]) | UInt32(bytes[index + 5]) << 8 | UInt32(bytes[index + 6]) << 16
                    | UInt32(bytes[index + 7]) << 24
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int(low >> 8 & 0xFF)]
                    ^ table[5 * 256 + Int(low >> 16 & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int(high >> 8 & 0xFF)]
                    ^ table[256 + Int(high >> 16 & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        state = crc
    }

    /// The checksum of everything added so far.
    var value: UInt32 { ~state }

    /// As Cloud Storage shows it: the four big-endian bytes in base64.
    var base64: String {
        let value = value
        return Base64URL.encodeStandard([
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ])
    }

    /// Eight 256-entry tables: `tables[k * 256 + b]` is the CRC of byte `b` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()
}
