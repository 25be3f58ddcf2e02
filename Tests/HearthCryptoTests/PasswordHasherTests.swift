import HearthCrypto
import Testing

@Suite struct PasswordHasherTests {
    private let hasher = PasswordHasher(parameters: .minimum)

    @Test func hashVerifiesOnlyTheRightPassword() throws {
        let hash = try hasher.hash("correct horse")
        #expect(hash.hasPrefix("$argon2id$v=19$"))
        #expect(!hash.contains("correct horse"))
        #expect(hasher.verify("correct horse", against: hash))
        #expect(!hasher.verify("correct horsf", against: hash))
        #expect(!hasher.verify("", against: hash))
    }

    @Test func saltsDiffer() throws {
        #expect(try hasher.hash("same") != hasher.hash("same"))
    }

    @Test func parametersLiveInTheHash() throws {
        let strong = PasswordHasher(parameters: PasswordHasher.Parameters(iterations: 3, memoryBytes: 1024 * 1024))
        let hash = try strong.hash("pw")
        #expect(hash.contains("m=1024,t=3,p=1"))
        // A hasher with other parameters still verifies it (it reads them from the hash) and asks for a rehash.
        #expect(hasher.verify("pw", against: hash))
        #expect(hasher.needsRehash(hash))
        #expect(!strong.needsRehash(hash))
    }

    @Test func owaspParameters() throws {
        let owasp = PasswordHasher()
        let hash = try owasp.hash("pässwörd 🔑")
        #expect(hash.contains("m=19456,t=2,p=1"))
        #expect(owasp.verify("pässwörd 🔑", against: hash))
    }

    @Test func malformedHashesNeverMatch() {
        #expect(!hasher.verify("pw", against: ""))
        #expect(!hasher.verify("pw", against: "$argon2id$v=19$m=8,t=1,p=1$garbage"))
        #expect(!hasher.verify("pw", against: "fakeHash:salt=x:password=pw"))
        #expect(hasher.needsRehash("not a hash"))
    }
}
