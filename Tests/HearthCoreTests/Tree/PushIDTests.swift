import Testing

@testable import HearthCore

@Suite struct PushIDTests {
    @Test func makesTwentyCharacterIDsFromFirebasesAlphabet() {
        var generator = PushIDGenerator()
        var random = SystemRandomNumberGenerator()
        let id = generator.next(nowMillis: 1_700_000_000_000) { UInt8.random(in: 0..<64, using: &random) }
        #expect(id.utf8.count == 20)
        #expect(id.utf8.allSatisfy(PushIDGenerator.alphabet.contains))
        #expect(PushIDGenerator.alphabet == PushIDGenerator.alphabet.sorted(), "the alphabet is in ASCII order")
    }

    @Test func increasesStrictlyWithinAMillisecondAndWhenTheClockStepsBack() {
        var generator = PushIDGenerator()
        var random = SystemRandomNumberGenerator()
        var previous = ""
        for millis: Int64 in [5_000, 5_000, 5_000, 4_000, 5_001, 5_001, 3, 6_000] {
            for _ in 0..<50 {
                let id = generator.next(nowMillis: millis) { UInt8.random(in: 0..<64, using: &random) }
                #expect(id > previous, "\(id) after \(previous)")
                previous = id
            }
        }
    }

    @Test func carriesIntoTheNextMillisecondWhenTheRandomPartIsExhausted() {
        var generator = PushIDGenerator()
        let first = generator.next(nowMillis: 7) { 63 }
        let second = generator.next(nowMillis: 7) { 0 }
        #expect(second > first)
        #expect(first.prefix(8) != second.prefix(8), "the time part moved on")
    }

    @Test func encodesTheTimeInTheFirstEightCharacters() {
        var generator = PushIDGenerator()
        let early = generator.next(nowMillis: 1_000) { 0 }
        var other = PushIDGenerator()
        let late = other.next(nowMillis: 2_000) { 0 }
        #expect(early.prefix(8) < late.prefix(8))
        #expect(early.prefix(8) == "------Ec", "1000 = 15 × 64 + 40")
    }

    @Test func hashesWithSHA1() {
        let hex = { (bytes: [UInt8]) in
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined()
        }
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(
            hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(TreeETag.of(nil) == TreeETag.of(nil))
        #expect(
            TreeETag.of(node("1")) != TreeETag.of(node(#"{".value":1,".priority":1}"#)),
            "the priority is part of the tag")
    }
}
