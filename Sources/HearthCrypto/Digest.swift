internal import COpenSSL

/// The message digests Hearth uses: SHA-256 for tokens and signatures, and — for checking password hashes
/// imported from other systems, and MD5 for storage checksums — MD5, SHA-1 and SHA-512. Never choose MD5 or SHA-1
/// for new security.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// MD5 (RFC 1321), 16 bytes.
    case md5
    /// SHA-1 (FIPS 180-4), 20 bytes.
    case sha1
    /// SHA-256 (FIPS 180-4), 32 bytes.
    case sha256
    /// SHA-512 (FIPS 180-4), 64 bytes.
    case sha512

    private var engine: OpaquePointer? {
        switch self {
        case .md5: EVP_md5()
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha512: EVP_sha512()
        }
    }

    /// The digest of `data`.
    public func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(data)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, engine, nil)
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    /// HMAC (RFC 2104) of `data` under `key`.
    public func authenticationCode(for data: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyBytes = Array(key)
        let dataBytes = Array(data)
        keyBytes.withUnsafeBufferPointer { keyBuffer in
            dataBytes.withUnsafeBufferPointer { dataBuffer in
                _ = HMAC(
                    engine, keyBuffer.baseAddress, Int32(keyBuffer.count), dataBuffer.baseAddress, dataBuffer.count,
                    &code, &length)
            }
        }
        return Array(code.prefix(Int(length)))
    }

    /// PBKDF2 (RFC 8018) with HMAC over this digest.
    public func pbkdf2(
        password: [UInt8], salt: [UInt8], iterations: Int, length: Int
    ) throws(CryptoError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: length)
        let ok = PKCS5_PBKDF2_HMAC(
            password.map { CChar(bitPattern: $0) }, Int32(password.count), salt, Int32(salt.count),
            Int32(iterations), engine, Int32(length), &key)
        guard ok == 1 else { throw .openSSL("PBKDF2-\(rawValue)") }
        return key
    }
}

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// The 32-byte digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] { DigestAlgorithm.sha256.hash(data) }
}

/// MD5 (RFC 1321), for the rules language's `hashing.md5` (comparing a client's checksum); never for security.
public enum MD5 {
    /// The 16-byte digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] { DigestAlgorithm.md5.hash(data) }
}

/// HMAC-SHA-256 (RFC 2104).
public enum HMACSHA256 {
    /// The 32-byte authentication code of `data` under `key`.
    public static func authenticationCode(for data: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        DigestAlgorithm.sha256.authenticationCode(for: data, key: key)
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
