internal import COpenSSL

/// An RSA private key, for signing with RS256 (RSASSA-PKCS1-v1_5 over SHA-256).
///
/// Wraps an OpenSSL `EVP_PKEY`. OpenSSL allows one key to be used from many threads at once as long as nobody
/// modifies it, and this type never does after `init`, hence `@unchecked Sendable`.
public final class RSAPrivateKey: @unchecked Sendable {
    let pkey: OpaquePointer

    init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// A fresh key of `bits` bits (public exponent 65537).
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        guard bits >= 2048 else {
            throw CryptoError("RSA key generation", reason: "keys shorter than 2048 bits are refused")
        }
        guard let pkey = hearth_EVP_RSA_gen(UInt32(bits)) else { throw .openSSL("RSA key generation") }
        return RSAPrivateKey(taking: pkey)
    }

    /// Reads a PEM private key (`BEGIN PRIVATE KEY` or `BEGIN RSA PRIVATE KEY`).
    public convenience init(pem: String) throws(CryptoError) {
        let pkey = try OpenSSLBIO.withReadable(Array(pem.utf8)) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }
        guard let pkey else { throw .openSSL("reading a PEM private key") }
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA else {
            EVP_PKEY_free(pkey)
            throw CryptoError("reading a PEM private key", reason: "not an RSA key")
        }
        self.init(taking: pkey)
    }

    /// The key as unencrypted PKCS #8 PEM (`BEGIN PRIVATE KEY`); store it with owner-only permissions.
    public func pemRepresentation() throws(CryptoError) -> String {
        try OpenSSLBIO.writing("writing a PEM private key") { bio in
            PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil)
        }
    }

    /// The matching public key.
    public var publicKey: RSAPublicKey {
        get throws(CryptoError) {
            let pem = try OpenSSLBIO.writing("extracting the public key") { bio in PEM_write_bio_PUBKEY(bio, pkey) }
            return try RSAPublicKey(pem: pem)
        }
    }

    /// The key size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    /// The RS256 signature of `data`.
    public func signatureSHA256(for data: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL("RS256 signing") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey) == 1 else { throw .openSSL("RS256 signing") }
        let input = Array(data)
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, input.count) == 1 else { throw .openSSL("RS256 signing") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else {
            throw .openSSL("RS256 signing")
        }
        return Array(signature.prefix(length))
    }
}

/// Memory BIOs for moving PEM text in and out of OpenSSL.
enum OpenSSLBIO {
    /// Runs `body` with a read-only memory BIO over `bytes`.
    static func withReadable<T>(_ bytes: [UInt8], _ body: (OpaquePointer) -> T) throws(CryptoError) -> T {
        let result: T? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
        guard let result else { throw .openSSL("allocating a BIO") }
        return result
    }

    /// Runs `write` against a fresh memory BIO and returns what it wrote, as text.
    static func writing(_ operation: String, _ write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSL(operation) }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw .openSSL(operation) }
        var data: UnsafeMutablePointer<CChar>?
        let length = hearth_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw CryptoError(operation, reason: "nothing was written") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
