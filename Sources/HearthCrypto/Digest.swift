internal import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// The 32-byte digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(data)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = COpenSSL.SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }
}

/// MD5 (RFC 1321), for the rules language's `hashing.md5` (comparing a client's checksum); never for security.
public enum MD5 {
    /// The 16-byte digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(data)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_md5(), nil)
            }
        }
        return Array(digest.prefix(Int(length)))
    }
}

/// HMAC-SHA-256 (RFC 2104).
public enum HMACSHA256 {
    /// The 32-byte authentication code of `data` under `key`.
    public static func authenticationCode(for data: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyBytes = Array(key)
        let dataBytes = Array(data)
        keyBytes.withUnsafeBufferPointer { keyBuffer in
            dataBytes.withUnsafeBufferPointer { dataBuffer in
                _ = HMAC(
                    EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count), dataBuffer.baseAddress,
                    dataBuffer.count,
                    &code, &length)
            }
        }
        return Array(code.prefix(Int(length)))
    }
}

/// Comparisons whose running time does not depend on where two secrets first differ.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes. Lengths are not secret (a token's length is public), so
    /// unequal lengths return early.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    /// Whether two strings have the same UTF-8 bytes, compared in constant time.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}

/// MD5 over bytes that arrive in pieces (a streamed upload), so the whole input is never held at once; for the
/// `md5Hash` Cloud Storage reports, never for security.
public final class IncrementalMD5 {
    private let context: OpaquePointer?

    /// A digest over no bytes yet.
    public init() {
        context = EVP_MD_CTX_new()
        _ = EVP_DigestInit_ex(context, EVP_md5(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    /// The 16-byte digest of everything added; the digest cannot be updated afterwards.
    public func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return Array(digest.prefix(Int(length)))
    }
}
