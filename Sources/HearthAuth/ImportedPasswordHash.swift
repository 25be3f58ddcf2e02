import Foundation
import HearthCore
public import HearthCrypto

/// A password hash brought over from Firebase (or another system) by `accounts:batchCreate`: kept as it was, with
/// the parameters needed to check it, until the first sign-in replaces it with argon2id.
///
/// Stored in `password_hash` as `$<scheme>$<field>$…` (base64 for bytes), which argon2id's `$argon2id$…` never
/// starts with.
public enum ImportedPasswordHash: Sendable, Equatable {
    /// Firebase's modified scrypt: scrypt(password, salt ‖ separator, 2^memoryCost, rounds, 1) keys AES-256-CTR (zero
    /// IV) over the project's signer key; the result is the hash.
    case firebaseScrypt(
        signerKey: [UInt8], saltSeparator: [UInt8], salt: [UInt8], rounds: Int, memoryCost: Int, hash: [UInt8])
    /// Standard scrypt with cost `n`, block size `r`, parallelism `p`; the hash's length is the key length.
    case scrypt(salt: [UInt8], n: Int, r: Int, p: Int, hash: [UInt8])
    /// PBKDF2 with HMAC over `digest` (SHA-256: `PBKDF2_SHA256`, SHA-1: `PBKDF_SHA1`), `rounds` iterations.
    case pbkdf2(DigestAlgorithm, salt: [UInt8], rounds: Int, hash: [UInt8])
    /// `HMAC_MD5`, `HMAC_SHA1`, `HMAC_SHA256`, `HMAC_SHA512`: the HMAC under the signer key of the salt and the
    /// password, in the order stated (`passwordHashOrder`).
    case hmac(DigestAlgorithm, key: [UInt8], salt: [UInt8], saltFirst: Bool, hash: [UInt8])
    /// `MD5`, `SHA1`, `SHA256`, `SHA512`: the digest of the salt and the password (in the order stated), then the
    /// digest of that, `rounds` digests in all (0 counts as 1).
    case digest(DigestAlgorithm, salt: [UInt8], rounds: Int, saltFirst: Bool, hash: [UInt8])
    /// bcrypt: the whole `$2b$10$…` string, which carries its own cost and salt.
    case bcrypt(String)

    /// Firebase's limits for its modified scrypt (rounds 1…8, memory cost 1…14).
    static let firebaseRounds = 1...8
    static let firebaseMemoryCost = 1...14
    /// Bounds that keep one sign-in's check under ~64 MiB and a second.
    static let scryptMaximumN = 1 << 17
    static let scryptMaximumR = 16
    static let scryptMaximumP = 16
    static let pbkdf2Rounds = 1...120_000
    /// Firebase's bounds for the plain digests' rounds.
    static let digestRounds = 0...8192

    /// The stored text.
    var stored: String {
        func b64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
        return switch self {
        case .firebaseScrypt(let key, let separator, let salt, let rounds, let memoryCost, let hash):
            "$firebase-scrypt$\(b64(key))$\(b64(separator))$\(b64(salt))$\(rounds)$\(memoryCost)$\(b64(hash))"
        case .scrypt(let salt, let n, let r, let p, let hash):
            "$scrypt$\(b64(salt))$\(n)$\(r)$\(p)$\(b64(hash))"
        case .pbkdf2(let digest, let salt, let rounds, let hash):
            "$pbkdf2-\(digest.rawValue)$\(b64(salt))$\(rounds)$\(b64(hash))"
        case .hmac(let digest, let key, let salt, let saltFirst, let hash):
            "$hmac-\(digest.rawValue)$\(b64(key))$\(b64(salt))$\(saltFirst ? "sp" : "ps")$\(b64(hash))"
        case .digest(let digest, let salt, let rounds, let saltFirst, let hash):
            "$digest-\(digest.rawValue)$\(b64(salt))$\(rounds)$\(saltFirst ? "sp" : "ps")$\(b64(hash))"
        case .bcrypt(let hash):
            "$bcrypt$\(b64(Array(hash.utf8)))"
        }
    }

    /// The hash `stored` holds; `nil` for anything else (an argon2id hash).
    init?(stored: String) {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, parts[0].isEmpty else { return nil }
        func bytes(_ index: Int) -> [UInt8]? { Data(base64Encoded: parts[index]).map(Array.init) }
        switch (parts[1], parts.count) {
        case ("firebase-scrypt", 8):
            guard let key = bytes(2), let separator = bytes(3), let salt = bytes(4), let rounds = Int(parts[5]),
                let memoryCost = Int(parts[6]), let hash = bytes(7)
            else { return nil }
            self = .firebaseScrypt(
                signerKey: key, saltSeparator: separator, salt: salt, rounds: rounds, memoryCost: memoryCost,
                hash: hash)
        case ("scrypt", 7):
            guard let salt = bytes(2), let n = Int(parts[3]), let r = Int(parts[4]), let p = Int(parts[5]),
                let hash = bytes(6)
            else { return nil }
            self = .scrypt(salt: salt, n: n, r: r, p: p, hash: hash)
        case (let scheme, 5) where scheme.hasPrefix("pbkdf2-"):
            guard let digest = DigestAlgorithm(rawValue: String(scheme.dropFirst("pbkdf2-".count))),
                let salt = bytes(2), let rounds = Int(parts[3]), let hash = bytes(4)
            else { return nil }
            self = .pbkdf2(digest, salt: salt, rounds: rounds, hash: hash)
        case (let scheme, 6) where scheme.hasPrefix("hmac-"):
            guard let digest = DigestAlgorithm(rawValue: String(scheme.dropFirst("hmac-".count))),
                let key = bytes(2), let salt = bytes(3), ["sp", "ps"].contains(parts[4]), let hash = bytes(5)
            else { return nil }
            self = .hmac(digest, key: key, salt: salt, saltFirst: parts[4] == "sp", hash: hash)
        case (let scheme, 6) where scheme.hasPrefix("digest-"):
            guard let digest = DigestAlgorithm(rawValue: String(scheme.dropFirst("digest-".count))),
                let salt = bytes(2), let rounds = Int(parts[3]), ["sp", "ps"].contains(parts[4]), let hash = bytes(5)
            else { return nil }
            self = .digest(digest, salt: salt, rounds: rounds, saltFirst: parts[4] == "sp", hash: hash)
        case ("bcrypt", 3):
            guard let hash = bytes(2) else { return nil }
            self = .bcrypt(String(decoding: hash, as: UTF8.self))
        default:
            return nil
        }
    }

    /// Whether `password` is the one hashed; parameters outside the import limits never verify.
    func verify(_ password: String) -> Bool {
        let bytes = Array(password.utf8)
        do {
            switch self {
            case .firebaseScrypt(let key, let separator, let salt, let rounds, let memoryCost, let hash):
                guard Self.firebaseRounds.contains(rounds), Self.firebaseMemoryCost.contains(memoryCost) else {
                    return false
                }
                let derived = try KeyDerivation.scrypt(
                    password: bytes, salt: salt + separator, n: 1 << UInt64(memoryCost), r: UInt64(rounds), p: 1,
                    length: 32)
                let computed = try KeyDerivation.aes256CTR(
                    key: derived, iv: [UInt8](repeating: 0, count: 16), data: key)
                return ConstantTime.equals(computed, hash)
            case .scrypt(let salt, let n, let r, let p, let hash):
                guard (2...Self.scryptMaximumN).contains(n), n & (n - 1) == 0, (1...Self.scryptMaximumR).contains(r),
                    (1...Self.scryptMaximumP).contains(p), (16...128).contains(hash.count)
                else { return false }
                let derived = try KeyDerivation.scrypt(
                    password: bytes, salt: salt, n: UInt64(n), r: UInt64(r), p: UInt64(p), length: hash.count)
                return ConstantTime.equals(derived, hash)
            case .pbkdf2(let digest, let salt, let rounds, let hash):
                guard Self.pbkdf2Rounds.contains(rounds), (16...128).contains(hash.count) else { return false }
                let derived = try digest.pbkdf2(password: bytes, salt: salt, iterations: rounds, length: hash.count)
                return ConstantTime.equals(derived, hash)
            case .hmac(let digest, let key, let salt, let saltFirst, let hash):
                guard !key.isEmpty else { return false }
                let message = saltFirst ? salt + bytes : bytes + salt
                return ConstantTime.equals(digest.authenticationCode(for: message, key: key), hash)
            case .digest(let digest, let salt, let rounds, let saltFirst, let hash):
                guard Self.digestRounds.contains(rounds) else { return false }
                var computed = digest.hash(saltFirst ? salt + bytes : bytes + salt)
                for _ in 1..<max(1, rounds) { computed = digest.hash(computed) }
                return ConstantTime.equals(computed, hash)
            case .bcrypt(let hash):
                return BCrypt.verify(password, against: hash)
            }
        } catch {
            return false
        }
    }
}

extension AccountService {
    /// Checks `password` against a stored hash: argon2id, or one imported from elsewhere.
    func verifyPassword(_ password: String, against stored: String) -> Bool {
        if let imported = ImportedPasswordHash(stored: stored) { return imported.verify(password) }
        return hasher.verify(password, against: stored)
    }

    /// Whether a stored hash should be replaced at the next sign-in: imported ones always, argon2id ones made with
    /// weaker parameters than today's.
    func passwordNeedsRehash(_ stored: String) -> Bool {
        ImportedPasswordHash(stored: stored) != nil || hasher.needsRehash(stored)
    }
}
