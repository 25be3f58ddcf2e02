internal import CCrypt

/// bcrypt (`$2a$`, `$2b$`, `$2y$`) through libxcrypt's reentrant `crypt_rn`, for checking hashes imported from other
/// systems; Hearth never makes bcrypt hashes of its own.
public enum BCrypt {
    /// The highest cost accepted: 2^14 rounds take about a second; a higher one in an imported hash would let one
    /// sign-in attempt cost minutes.
    public static let maximumCost = 14

    /// Whether `password` hashes to `hash` (the whole `$2b$10$…` string), compared in constant time.
    public static func verify(_ password: String, against hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, ["$2a$", "$2b$", "$2y$"].contains(String(hash.prefix(4))),
            let cost = Int(hash.dropFirst(4).prefix(2)), (4...maximumCost).contains(cost),
            !password.utf8.contains(0)
        else { return false }
        // `struct crypt_data` is about 32 KiB: on the heap, one per call, so any thread may verify.
        let data = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<crypt_data>.size, alignment: MemoryLayout<crypt_data>.alignment)
        defer { data.deallocate() }
        data.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        guard let result = crypt_rn(password, hash, data, Int32(MemoryLayout<crypt_data>.size)) else {
            return false
        }
        return ConstantTime.equals(Array(String(cString: result).utf8), bytes)
    }
}
