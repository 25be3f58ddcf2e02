import HearthCrypto
import Testing

@Suite struct RSATests {
    /// Key generation costs tens of milliseconds; one key serves every test in the suite.
    static let key = try! RSAPrivateKey.generate()

    @Test func signatureVerifiesAndTamperingIsDetected() throws {
        let data = Array("header.payload".utf8)
        let signature = try Self.key.signatureSHA256(for: data)
        #expect(signature.count == 256)
        let publicKey = try Self.key.publicKey
        #expect(publicKey.isValidSignatureSHA256(signature, for: data))
        #expect(!publicKey.isValidSignatureSHA256(signature, for: Array("header.payload2".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!publicKey.isValidSignatureSHA256(flipped, for: data))
        #expect(!publicKey.isValidSignatureSHA256([], for: data))
    }

    @Test func anotherKeyDoesNotVerify() throws {
        let other = try RSAPrivateKey.generate()
        let data = Array("x".utf8)
        let signature = try other.signatureSHA256(for: data)
        #expect(!(try Self.key.publicKey).isValidSignatureSHA256(signature, for: data))
    }

    @Test func pemRoundTrips() throws {
        let pem = try Self.key.pemRepresentation()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try RSAPrivateKey(pem: pem)
        #expect(reloaded.bits == 2048)
        let data = Array("payload".utf8)
        #expect((try Self.key.publicKey).isValidSignatureSHA256(try reloaded.signatureSHA256(for: data), for: data))

        let publicPEM = try Self.key.publicKey.pemRepresentation()
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let publicKey = try RSAPublicKey(pem: publicPEM)
        #expect(publicKey.modulus == (try Self.key.publicKey).modulus)
        // The public half can be read from a private PEM too.
        #expect((try RSAPublicKey(pem: pem)).modulus == publicKey.modulus)
    }

    @Test func jwkCarriesModulusAndExponent() throws {
        let publicKey = try Self.key.publicKey
        #expect(publicKey.exponent == [1, 0, 1])
        #expect(publicKey.modulus.count == 256)
        let jwk = publicKey.jwk(keyID: "k1")
        #expect(jwk["kty"] == "RSA" && jwk["alg"] == "RS256" && jwk["use"] == "sig" && jwk["kid"] == "k1")
        #expect(jwk["e"] == "AQAB")
        #expect(jwk["n"]?.count == 342, "256 bytes are 342 base64url characters without padding")
        let rebuilt = try RSAPublicKey(modulus: publicKey.modulus, exponent: publicKey.exponent)
        let data = Array("jwk".utf8)
        #expect(rebuilt.isValidSignatureSHA256(try Self.key.signatureSHA256(for: data), for: data))
    }

    @Test func rejectsShortKeysAndGarbage() {
        #expect(throws: CryptoError.self) { try RSAPrivateKey.generate(bits: 1024) }
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: "not a key") }
        #expect(throws: CryptoError.self) {
            try RSAPublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
    }
}
