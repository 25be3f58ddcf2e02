import Foundation
import HearthCore
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    static func foundationURL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test(
        "encodes as Foundation's base64 with the URL alphabet and no padding; decodes it and the padded standard form")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == Self.foundationURL(bytes), "\(bytes)")
            #expect(Base64URL.decode(encoded) == bytes)
            #expect(Base64URL.decode(Data(bytes).base64EncodedString()) == bytes)
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("+/8=") == [0xFB, 0xFF])
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("") == [])
    }

    @Test("refuses what is not base64", arguments: ["Q", "QUJDR", "QQ===", "QU=J", "a b=", "QQ!!", "é", "QQ==QQ=="])
    func refuses(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
