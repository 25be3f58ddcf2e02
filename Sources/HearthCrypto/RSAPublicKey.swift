internal import COpenSSL

/// An RSA public key, for verifying RS256 signatures and publishing as a JWK.
///
/// Immutable after `init`; OpenSSL allows concurrent read-only use of one `EVP_PKEY`, hence `@unchecked Sendable`.
public final class RSAPublicKey: @unchecked Sendable {
    let pkey: OpaquePointer

    private init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Reads a PEM public key (`BEGIN PUBLIC KEY`), or the public half of a PEM private key.
    public convenience init(pem: String) throws(CryptoError) {
        let bytes = Array(pem.utf8)
        var pkey = try OpenSSLBIO.withReadable(bytes) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        if pkey == nil {
            ERR_clear_error()
            pkey = try RSAPrivateKey(pem: pem).publicKeyHandle()
        }
        guard let pkey else { throw .openSSL("reading a PEM public key") }
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA else {
            EVP_PKEY_free(pkey)
            throw CryptoError("reading a PEM public key", reason: "not an RSA key")
        }
        self.init(taking: pkey)
    }

    /// A key from its modulus and public exponent, as big-endian unsigned bytes (a JWK's `n` and `e`).
    public convenience init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        let operation = "building an RSA public key"
        guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil),
            let e = BN_bin2bn(exponent, Int32(exponent.count), nil)
        else { throw .openSSL(operation) }
        defer {
            BN_free(n)
            BN_free(e)
        }
        guard let builder = OSSL_PARAM_BLD_new() else { throw .openSSL(operation) }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard OSSL_PARAM_BLD_push_BN(builder, hearth_param_rsa_n(), n) == 1,
            OSSL_PARAM_BLD_push_BN(builder, hearth_param_rsa_e(), e) == 1,
            let params = OSSL_PARAM_BLD_to_param(builder)
        else { throw .openSSL(operation) }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw .openSSL(operation) }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &pkey, hearth_EVP_PKEY_PUBLIC_KEY(), params) == 1, let pkey
        else { throw .openSSL(operation) }
        self.init(taking: pkey)
    }

    /// The key as PEM (`BEGIN PUBLIC KEY`, SubjectPublicKeyInfo).
    public func pemRepresentation() throws(CryptoError) -> String {
        try OpenSSLBIO.writing("writing a PEM public key") { bio in PEM_write_bio_PUBKEY(bio, pkey) }
    }

    /// The key size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    /// The modulus `n`, big-endian, without leading zero bytes.
    public var modulus: [UInt8] { bigNumber("n") }

    /// The public exponent `e`, big-endian, without leading zero bytes.
    public var exponent: [UInt8] { bigNumber("e") }

    /// Whether `signature` is a valid RS256 signature of `data` under this key.
    public func isValidSignatureSHA256(_ signature: [UInt8], for data: some Collection<UInt8>) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let input = Array(data)
        let valid =
            EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1
            && EVP_DigestVerify(context, signature, signature.count, input, input.count) == 1
        // A failed verification leaves reasons on this thread's error queue; they are expected, not news.
        if !valid { ERR_clear_error() }
        return valid
    }

    /// The key as a JSON Web Key (RFC 7517) for RS256 signatures: `kty`, `alg`, `use`, `kid`, `n`, `e`.
    public func jwk(keyID: String) -> [String: String] {
        ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": keyID, "n": base64URL(modulus), "e": base64URL(exponent)]
    }

    private func bigNumber(_ name: String) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &number) == 1, let number else { return [] }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
        let written = BN_bn2bin(number, &bytes)
        return Array(bytes.prefix(Int(written)))
    }
}

extension RSAPrivateKey {
    /// A new `EVP_PKEY` holding only the public half, owned by the caller.
    fileprivate func publicKeyHandle() throws(CryptoError) -> OpaquePointer? {
        let pem = try OpenSSLBIO.writing("extracting the public key") { bio in PEM_write_bio_PUBKEY(bio, pkey) }
        return try OpenSSLBIO.withReadable(Array(pem.utf8)) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
    }
}

/// URL-safe base64 without padding (RFC 7515 §2), for JWK members.
func base64URL(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index + 3 <= bytes.count {
        let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
        for shift in [18, 12, 6, 0] { output.append(alphabet[Int(chunk >> UInt32(shift) & 63)]) }
        index += 3
    }
    let rest = bytes.count - index
    if rest > 0 {
        let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
        output.append(alphabet[Int(chunk >> 18 & 63)])
        output.append(alphabet[Int(chunk >> 12 & 63)])
        if rest == 2 { output.append(alphabet[Int(chunk >> 6 & 63)]) }
    }
    return String(decoding: output, as: UTF8.self)
}
