internal import COpenSSL

/// Password-based key derivation and the AES mode Firebase's modified scrypt needs — for verifying password hashes
/// imported from Firebase and other systems. Hearth's own hashes are argon2id (``PasswordHasher``).
public enum KeyDerivation {
    /// scrypt (RFC 7914) with cost `n` (a power of two), block size `r` and parallelism `p`.
    public static func scrypt(
        password: [UInt8], salt: [UInt8], n: UInt64, r: UInt64, p: UInt64, length: Int
    ) throws(CryptoError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: length)
        // 128·r·(n + p + 2) bytes, plus room; OpenSSL refuses parameters that need more than `maxMemory`.
        let maxMemory = 128 * r * (n + p + 2) + 1024 * 1024
        let ok = EVP_PBE_scrypt(
            password.map { CChar(bitPattern: $0) }, password.count, salt, salt.count, n, r, p, maxMemory, &key, length)
        guard ok == 1 else { throw .openSSL("scrypt") }
        return key
    }

    /// PBKDF2 (RFC 8018) with HMAC-SHA-256.
    public static func pbkdf2SHA256(
        password: [UInt8], salt: [UInt8], iterations: Int, length: Int
    ) throws(CryptoError) -> [UInt8] {
        try DigestAlgorithm.sha256.pbkdf2(password: password, salt: salt, iterations: iterations, length: length)
    }

    /// AES-256 in counter mode: `data` encrypted (or decrypted — it is the same) under a 32-byte `key` from `iv`.
    public static func aes256CTR(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32, iv.count == 16 else {
            throw CryptoError("AES-256-CTR", reason: "the key must be 32 bytes and the IV 16")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("AES-256-CTR") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: data.count + 16)
        var written: Int32 = 0
        var final: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, key, iv) == 1,
            EVP_EncryptUpdate(context, &output, &written, data, Int32(data.count)) == 1
        else { throw .openSSL("AES-256-CTR") }
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &final)
        }
        guard finished == 1 else { throw .openSSL("AES-256-CTR") }
        return Array(output.prefix(Int(written + final)))
    }
}
