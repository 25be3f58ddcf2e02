/// The rules language's `hashing` namespace — `crc32`, `crc32c`, `md5`, `sha256` of bytes or of a string's UTF-8 —
/// written out here because HearthRules has no crypto library (and needs none: rules only compare digests).
/// CRC results are the 4 bytes of the checksum, most significant first, as Cloud Storage publishes them.
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

    /// MD5 (RFC 1321).
    static func md5(_ message: [UInt8]) -> [UInt8] {
        let shifts: [UInt32] = [
            7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
            14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
            21, 6, 10, 15, 21,
        ]
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        for block in blocks(message, lengthBigEndian: false) {
            var m = [UInt32](repeating: 0, count: 16)
            for i in 0..<16 {
                for byte in 0..<4 { m[i] |= UInt32(block[i * 4 + byte]) << UInt32(byte * 8) }
            }
            var (a, b, c, d) = (h[0], h[1], h[2], h[3])
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: (f, g) = ((b & c) | (~b & d), i)
                case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * i + 1) % 16)
                case 32..<48: (f, g) = (b ^ c ^ d, (3 * i + 5) % 16)
                default: (f, g) = (c ^ (b | ~d), (7 * i) % 16)
                }
                f = f &+ a &+ md5Constants[i] &+ m[g]
                (a, d, c) = (d, c, b)
                b = b &+ rotateLeft(f, shifts[i])
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d]
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32($0 * 8)) } }
    }

    /// floor(abs(sin(i + 1)) × 2³²), as RFC 1321 tabulates them.
    private static let md5Constants: [UInt32] = [
        0xD76A_A478, 0xE8C7_B756, 0x2420_70DB, 0xC1BD_CEEE, 0xF57C_0FAF, 0x4787_C62A, 0xA830_4613, 0xFD46_9501,
        0x6980_98D8, 0x8B44_F7AF, 0xFFFF_5BB1, 0x895C_D7BE, 0x6B90_1122, 0xFD98_7193, 0xA679_438E, 0x49B4_0821,
        0xF61E_2562, 0xC040_B340, 0x265E_5A51, 0xE9B6_C7AA, 0xD62F_105D, 0x0244_1453, 0xD8A1_E681, 0xE7D3_FBC8,
        0x21E1_CDE6, 0xC337_07D6, 0xF4D5_0D87, 0x455A_14ED, 0xA9E3_E905, 0xFCEF_A3F8, 0x676F_02D9, 0x8D2A_4C8A,
        0xFFFA_3942, 0x8771_F681, 0x6D9D_6122, 0xFDE5_380C, 0xA4BE_EA44, 0x4BDE_CFA9, 0xF6BB_4B60, 0xBEBF_BC70,
        0x289B_7EC6, 0xEAA1_27FA, 0xD4EF_3085, 0x0488_1D05, 0xD9D4_D039, 0xE6DB_99E5, 0x1FA2_7CF8, 0xC4AC_5665,
        0xF429_2244, 0x432A_FF97, 0xAB94_23A7, 0xFC93_A039, 0x655B_59C3, 0x8F0C_CC92, 0xFFEF_F47D, 0x8584_5DD1,
        0x6FA8_7E4F, 0xFE2C_E6E0, 0xA301_4314, 0x4E08_11A1, 0xF753_7E82, 0xBD3A_F235, 0x2AD7_D2BB, 0xEB86_D391,
    ]

    /// SHA-256 (FIPS 180-4).
    static func sha256(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [
            0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19,
        ]
        var w = [UInt32](repeating: 0, count: 64)
        for block in blocks(message, lengthBigEndian: true) {
            for t in 0..<16 {
                w[t] = 0
                for byte in 0..<4 { w[t] = w[t] << 8 | UInt32(block[t * 4 + byte]) }
            }
            for t in 16..<64 {
                let s0 = rotateRight(w[t - 15], 7) ^ rotateRight(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotateRight(w[t - 2], 17) ^ rotateRight(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var v = h
            for t in 0..<64 {
                let s1 = rotateRight(v[4], 6) ^ rotateRight(v[4], 11) ^ rotateRight(v[4], 25)
                let choice = (v[4] & v[5]) ^ (~v[4] & v[6])
                let temp1 = v[7] &+ s1 &+ choice &+ sha256Constants[t] &+ w[t]
                let s0 = rotateRight(v[0], 2) ^ rotateRight(v[0], 13) ^ rotateRight(v[0], 22)
                let majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2])
                let temp2 = s0 &+ majority
                v = [temp1 &+ temp2, v[0], v[1], v[2], v[3] &+ temp1, v[4], v[5], v[6]]
            }
            for i in 0..<8 { h[i] = h[i] &+ v[i] }
        }
        return bigEndian(h)
    }

    private static let sha256Constants: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    /// The message padded (0x80, zeros, the bit length in 8 bytes) and cut into 64-byte blocks.
    private static func blocks(_ message: [UInt8], lengthBigEndian: Bool) -> [[UInt8]] {
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) &* 8
        let length = (0..<8).map { UInt8(truncatingIfNeeded: bits >> UInt64($0 * 8)) }
        padded += lengthBigEndian ? length.reversed() : length
        return stride(from: 0, to: padded.count, by: 64).map { Array(padded[$0..<($0 + 64)]) }
    }

    private static func bigEndian(_ words: [UInt32]) -> [UInt8] {
        words.flatMap { word in
            stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> UInt32($0)) }
        }
    }

    private static func rotateLeft(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
    private static func rotateRight(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
}
