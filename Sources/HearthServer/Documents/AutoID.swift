import HearthCrypto
import Synchronization

/// Random document IDs: 20 characters from a 62-letter alphabet drawn from the system CSPRNG (OpenSSL's
/// `RAND_bytes`), as Firestore's client libraries make them.
enum AutoID {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// CSPRNG bytes drawn 4 KiB at a time and handed out in order, each once. One `RAND_bytes` call per ID cost more
    /// than the rest of making it (OpenSSL's parameter lookups and a getpid(2) fork check on every call); the IDs
    /// are names, not secrets, so holding the next few hundred in memory reveals nothing a listing would not.
    private static let pool = Mutex(RandomPool())

    static func make() -> String {
        String(unsafeUninitializedCapacity: 20) { id in
            pool.withLock { pool in
                var count = 0
                // Bytes of 248 and above are dropped so that `% 62` stays uniform.
                while count < 20 {
                    let byte = pool.next()
                    if byte < 248 {
                        id[count] = alphabet[Int(byte % 62)]
                        count += 1
                    }
                }
            }
            return 20
        }
    }
}

/// A buffer of CSPRNG bytes, refilled when used up.
private struct RandomPool {
    private static let size = 4096
    private var bytes: [UInt8] = []
    private var position = 0

    mutating func next() -> UInt8 {
        if position == bytes.count {
            bytes = SecureRandom.bytes(Self.size)
            position = 0
        }
        defer { position += 1 }
        return bytes[position]
    }
}
