/// The CRCs of the rules language's `hashing` namespace (`md5` and `sha256` come from HearthCrypto): table-driven,
/// since OpenSSL has no CRC. Results are the 4 bytes of the checksum, most significant first, as Cloud Storage
/// publishes them.
enum RulesHashing {
    /// CRC-32 (IEEE 802.3, the zlib/PNG one).
    static func crc32(_ bytes: [UInt8]) -> [UInt8] { checksum(bytes, table: ieeeTable) }

    /// CRC-32C (Castagnoli, the one Cloud Storage uses).
    static func crc32c(_ bytes: [UInt8]) -> [UInt8] { checksum(bytes, table: castagnoliTable) }

    private static let ieeeTable = table(polynomial: 0xEDB8_8320)
    private static let castagnoliTable = table(polynomial: 0x82F6_3B78)

    private static func table(polynomial: UInt32) -> [UInt32] {
        (0..<256).map { index in
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ polynomial : value >> 1 }
            return value
        }
    }

    private static func checksum(_ bytes: [UInt8], table: [UInt32]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return bigEndian([~crc])
    }

    private static func bigEndian(_ words: [UInt32]) -> [UInt8] {
        words.flatMap { word in
            stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> UInt32($0)) }
        }
    }
}
