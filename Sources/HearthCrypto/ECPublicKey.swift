internal import COpenSSL

/// A P-256 public key, for verifying ES256 signatures (ECDSA over SHA-256, RFC 7518 §3.4) as identity providers'
/// JWKS publish them.
///
/// Immutable after `init`; OpenSSL allows concurrent read-only use of one `EVP_PKEY`, hence `@unchecked Sendable`.
public final class ECPublicKey: @unchecked Sendable {
    let pkey: OpaquePointer

    init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// A key from its affine coordinates, 32 big-endian bytes each (a JWK's `x` and `y` with `crv: P-256`).
    public convenience init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == 32, y.count == 32 else {
            throw CryptoError("building a P-256 public key", reason: "x and y must be 32 bytes each")
        }
        // SubjectPublicKeyInfo DER: the fixed P-256 prefix, then the uncompressed point 04 ‖ x ‖ y.
        let der = ECPublicKey.subjectPublicKeyInfoPrefix + [0x04] + x + y
        let pkey: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, buffer.count)
        }
        // OpenSSL also checks that the point lies on the curve; a point that does not is refused here.
        guard let pkey else { throw .openSSL("building a P-256 public key") }
        self.init(taking: pkey)
    }

    /// `SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (65 bytes) }` up to the point.
    static let subjectPublicKeyInfoPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The uncompressed point's coordinates (x, y), 32 bytes each.
    public var coordinates: (x: [UInt8], y: [UInt8]) {
        var pointer: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(pkey, &pointer)
        guard length == 91, let pointer else { return ([], []) }
        defer { CRYPTO_free(pointer, #fileID, #line) }
        let der = Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
        return (Array(der[27..<59]), Array(der[59..<91]))
    }

    /// Whether `signature` — JWS form, `r ‖ s`, 32 bytes each — is a valid ES256 signature of `data`.
    public func isValidSignatureES256(_ signature: [UInt8], for data: some Collection<UInt8>) -> Bool {
        guard signature.count == 64 else { return false }
        let der = ECDSASignature.der(r: Array(signature[..<32]), s: Array(signature[32...]))
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let input = Array(data)
        let valid =
            EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1
            && EVP_DigestVerify(context, der, der.count, input, input.count) == 1
        // A failed verification leaves reasons on this thread's error queue; they are expected, not news.
        if !valid { ERR_clear_error() }
        return valid
    }

    /// The key as a JSON Web Key for ES256: `kty`, `crv`, `alg`, `use`, `kid`, `x`, `y`.
    public func jwk(keyID: String) -> [String: String] {
        let (x, y) = coordinates
        return [
            "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": keyID, "x": base64URL(x),
            "y": base64URL(y),
        ]
    }
}

/// ECDSA signatures between JWS's fixed-width `r ‖ s` and the DER `SEQUENCE { INTEGER r, INTEGER s }` OpenSSL
/// speaks.
enum ECDSASignature {
    /// DER of two unsigned big-endian integers.
    static func der(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ bytes: [UInt8]) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            // A set top bit would read as negative: DER integers are signed.
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }

    /// `r ‖ s`, each left-padded to `width` bytes, from DER; `nil` when it is not such a sequence.
    static func raw(der: [UInt8], width: Int = 32) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var index = 2
        var parts: [[UInt8]] = []
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            guard index + 2 + length <= der.count else { return nil }
            let value = Array(der[(index + 2)..<(index + 2 + length)].drop { $0 == 0 })
            guard value.count <= width else { return nil }
            parts.append([UInt8](repeating: 0, count: width - value.count) + value)
            index += 2 + length
        }
        return index == der.count ? parts[0] + parts[1] : nil
    }
}
