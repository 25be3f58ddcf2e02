internal import COpenSSL

/// Bytes from the operating system's CSPRNG, through OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// `count` unpredictable bytes.
    ///
    /// `RAND_bytes` only fails when the system's entropy source is unusable; continuing would hand out guessable
    /// tokens, so that is a fatal error rather than a thrown one.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let rc = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(rc == 1, "the system random number generator failed")
        return bytes
    }

    /// A string of `count` characters drawn uniformly from `alphabet` (rejection sampling, so no character is
    /// more likely than another).
    public static func string(count: Int, alphabet: String) -> String {
        let characters = Array(alphabet)
        precondition(!characters.isEmpty && characters.count <= 256, "alphabet must have 1…256 characters")
        let limit = 256 - 256 % characters.count
        var result = ""
        result.reserveCapacity(count)
        while result.count < count {
            for byte in bytes(count) where Int(byte) < limit && result.count < count {
                result.append(characters[Int(byte) % characters.count])
            }
        }
        return result
    }
}
