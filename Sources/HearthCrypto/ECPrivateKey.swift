internal import COpenSSL

/// A P-256 private key, for signing with ES256. Hearth's own tokens are RS256; this signs what an identity provider
/// would, so the verifier can be tested against real ES256 signatures.
///
/// Immutable after `init`, hence `@unchecked Sendable` (see ``RSAPrivateKey``).
public final class ECPrivateKey: @unchecked Sendable {
    let pkey: OpaquePointer

    private init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// A fresh P-256 key.
    public static func generate() throws(CryptoError) -> ECPrivateKey {
        guard let pkey = hearth_EVP_EC_gen_P256() else { throw .openSSL("P-256 key generation") }
        return ECPrivateKey(taking: pkey)
    }

    /// The matching public key.
    public var publicKey: ECPublicKey {
        get throws(CryptoError) {
            var pointer: UnsafeMutablePointer<UInt8>?
            let length = i2d_PUBKEY(pkey, &pointer)
            guard length > 0, let pointer else { throw .openSSL("extracting the public key") }
            defer { CRYPTO_free(pointer, #fileID, #line) }
            var input: UnsafePointer<UInt8>? = UnsafePointer(pointer)
            guard let copy = d2i_PUBKEY(nil, &input, Int(length)) else { throw .openSSL("extracting the public key") }
            return ECPublicKey(taking: copy)
        }
    }

    /// The ES256 signature of `data` in JWS form: `r ‖ s`, 32 bytes each.
    public func signatureES256(for data: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL("ES256 signing") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey) == 1 else { throw .openSSL("ES256 signing") }
        let input = Array(data)
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, input.count) == 1 else { throw .openSSL("ES256 signing") }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, input, input.count) == 1,
            let raw = ECDSASignature.raw(der: Array(der.prefix(length)))
        else { throw .openSSL("ES256 signing") }
        return raw
    }
}
