import HearthCrypto
import Testing

@Suite struct DigestTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    @Test func sha256KnownVectors() {
        #expect(
            hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hmacSHA256RFC4231Case2() {
        let code = HMACSHA256.authenticationCode(
            for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(hex(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), []))
        #expect(ConstantTime.equals("owner", "owner"))
        #expect(!ConstantTime.equals("owner", "Owner"))
    }

    @Test func randomBytesDifferAndHaveTheRequestedLength() {
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32 && second.count == 32)
        #expect(first != second)
        #expect(SecureRandom.bytes(0).isEmpty)
    }

    @Test func randomStringsUseOnlyTheAlphabet() {
        let alphabet = "abc"
        let text = SecureRandom.string(count: 300, alphabet: alphabet)
        #expect(text.count == 300)
        #expect(text.allSatisfy { alphabet.contains($0) })
        #expect(Set(text).count == 3, "300 draws from 3 letters use every letter")
    }
}
