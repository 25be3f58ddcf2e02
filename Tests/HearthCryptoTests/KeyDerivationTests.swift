import Foundation
import HearthCrypto
import Testing

@Suite struct KeyDerivationTests {
    /// Firebase's modified scrypt on the test vector of Firebase's own scrypt tool: scrypt(password, salt ‖
    /// separator, 2^memCost, rounds, 1) keys AES-256-CTR (zero IV) over the project's signer key.
    @Test func firebaseScryptTestVector() throws {
        let signerKey = try #require(
            Data(
                base64Encoded:
                    "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="))
        let separator = try #require(Data(base64Encoded: "Bw=="))
        let salt = try #require(Data(base64Encoded: "42xEC+ixf3L2lw=="))
        let key = try KeyDerivation.scrypt(
            password: Array("user1password".utf8), salt: Array(salt + separator), n: 1 << 14, r: 8, p: 1, length: 32)
        let hash = try KeyDerivation.aes256CTR(key: key, iv: [UInt8](repeating: 0, count: 16), data: Array(signerKey))
        #expect(
            Data(hash).base64EncodedString()
                == "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")
    }

    /// RFC 7914 §12's second scrypt vector and RFC 7914 §11's PBKDF2-HMAC-SHA-256 vector.
    @Test func rfcVectors() throws {
        let scrypt = try KeyDerivation.scrypt(
            password: Array("password".utf8), salt: Array("NaCl".utf8), n: 1024, r: 8, p: 16, length: 64)
        #expect(
            scrypt.map { String(format: "%02x", $0) }.joined()
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
        let pbkdf2 = try KeyDerivation.pbkdf2SHA256(
            password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64)
        #expect(
            pbkdf2.map { String(format: "%02x", $0) }.joined()
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        )
    }
}

@Suite struct BCryptTests {
    /// OpenBSD's bcrypt test vector, then the limits.
    @Test func verifiesTheOpenBSDVector() {
        let hash = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(BCrypt.verify("U*U", against: hash))
        #expect(!BCrypt.verify("U*V", against: hash))
        #expect(!BCrypt.verify("U*U", against: hash.replacingOccurrences(of: "$2a$05$", with: "$2a$31$")))
        #expect(!BCrypt.verify("U*U", against: "$1$notbcrypt"))
    }
}
