import Foundation
public import HearthCore
import HearthCrypto
import HearthSQLite

/// One account of an import (`accounts:batchCreate`, what `firebase-admin`'s `import_users` sends).
public struct ImportedUser: Sendable {
    /// The uid to keep.
    public var localID: String?
    /// The address.
    public var email: String?
    /// Whether the address was verified.
    public var emailVerified = false
    /// The display name.
    public var displayName: String?
    /// The photo URL.
    public var photoURL: String?
    /// The phone number (E.164).
    public var phoneNumber: String?
    /// Whether the account is disabled.
    public var disabled = false
    /// Custom claims, a JSON object text.
    public var customAttributes: String?
    /// Creation time, Unix milliseconds.
    public var createdAt: Int64?
    /// Last sign-in, Unix milliseconds.
    public var lastLoginAt: Int64?
    /// The password hash, as the old system computed it.
    public var passwordHash: [UInt8]?
    /// The hash's salt.
    public var salt: [UInt8]?
    /// Linked provider identities.
    public var providers: [ProviderLink] = []

    /// An empty record.
    public init() {}

    /// A record as Identity Toolkit's `UserInfo` JSON has it — what `accounts:batchCreate` receives and
    /// `firebase auth:export` writes (`lastSignedInAt` or `lastLoginAt`; bytes in base64).
    public init(json: JSONValue) {
        func string(_ name: String) -> String? {
            switch json[name] {
            case .string(let text)?: text
            case .integer(let number)?: String(number)
            default: nil
            }
        }
        func flag(_ name: String) -> Bool { json[name] == .bool(true) || json[name] == "true" }
        localID = string("localId")
        email = string("email")
        emailVerified = flag("emailVerified")
        displayName = string("displayName")
        photoURL = string("photoUrl")
        phoneNumber = string("phoneNumber")
        disabled = flag("disabled")
        customAttributes = string("customAttributes")
        createdAt = string("createdAt").flatMap { Int64($0) }
        lastLoginAt = (string("lastLoginAt") ?? string("lastSignedInAt")).flatMap { Int64($0) }
        passwordHash = Self.bytes(string("passwordHash"))
        salt = Self.bytes(string("salt"))
        providers = (json["providerUserInfo"]?.arrayValue ?? []).map(ProviderLink.init(json:))
    }

    /// Proto3 JSON `bytes`: base64, standard or URL-safe, padded or not.
    public static func bytes(_ text: String?) -> [UInt8]? {
        guard let text, !text.isEmpty else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}

/// How the imported password hashes were computed (`hashAlgorithm` and its parameters).
public struct PasswordHashAlgorithm: Sendable {
    /// `SCRYPT` (Firebase's modified scrypt), `STANDARD_SCRYPT`, `PBKDF2_SHA256`, `PBKDF_SHA1`, `BCRYPT`,
    /// `HMAC_MD5`, `HMAC_SHA1`, `HMAC_SHA256`, `HMAC_SHA512`, `MD5`, `SHA1`, `SHA256` or `SHA512`.
    public var name: String
    /// `SCRYPT`: the project's signer key (base64 in the console's password hash parameters).
    public var signerKey: [UInt8]?
    /// `SCRYPT`: the salt separator.
    public var saltSeparator: [UInt8] = []
    /// `SCRYPT`, `PBKDF2_SHA256`: rounds.
    public var rounds: Int?
    /// `SCRYPT`: the memory cost (scrypt's N is 2^memoryCost).
    public var memoryCost: Int?
    /// `STANDARD_SCRYPT`: N, r, p.
    public var cpuMemoryCost: Int?
    /// `STANDARD_SCRYPT`: r.
    public var blockSize: Int?
    /// `STANDARD_SCRYPT`: p.
    public var parallelization: Int?
    /// The plain digests and HMACs: whether the salt comes before the password (`SALT_AND_PASSWORD`) or after it
    /// (`PASSWORD_AND_SALT`, also what an unstated order is taken as).
    public var saltFirst = false

    /// An algorithm by name.
    public init(name: String) {
        self.name = name
    }
}

extension AccountService {
    /// The most accounts one `batchCreate` takes, as Firebase.
    public static let maximumImportBatch = 1000

    /// `accounts:batchCreate` (admin): creates — or, for a uid that exists, overwrites, as Firebase's import does —
    /// each account with its uid, profile, times, claims, provider links and password hash (checked in its own
    /// algorithm until the first sign-in upgrades it to argon2id). A bad row is reported as (index, message) and
    /// written not at all; the others are written.
    public func batchCreate(
        _ users: [ImportedUser], algorithm: PasswordHashAlgorithm?
    ) throws(AuthError) -> [(index: Int, message: String)] {
        guard !users.isEmpty else { throw AuthError("MISSING_USER_ACCOUNT") }
        guard users.count <= Self.maximumImportBatch else {
            throw AuthError("MAXIMUM_USER_COUNT_EXCEEDED", "at most \(Self.maximumImportBatch) users per request")
        }
        if users.contains(where: { $0.passwordHash != nil }) {
            guard let algorithm else { throw AuthError("MISSING_HASH_ALGORITHM") }
            try Self.check(algorithm)
        }
        let now = clock.milliseconds
        let seconds = clock.seconds
        return try database.write { db in
            var refused: [(index: Int, message: String)] = []
            for (index, imported) in users.enumerated() {
                do {
                    try db.savepoint {
                        try Self.importRow(imported, algorithm: algorithm, now: now, seconds: seconds, in: db)
                    }
                } catch let error as AuthError where error.status == 400 {
                    refused.append((index, error.message))
                }
            }
            return refused
        }
    }

    /// Refuses unknown algorithms and parameters outside ``ImportedPasswordHash``'s limits before anything is
    /// written.
    static func check(_ algorithm: PasswordHashAlgorithm) throws(AuthError) {
        switch algorithm.name {
        case "SCRYPT":
            guard algorithm.signerKey?.isEmpty == false else { throw AuthError("MISSING_SIGNER_KEY") }
            guard let rounds = algorithm.rounds, ImportedPasswordHash.firebaseRounds.contains(rounds) else {
                throw AuthError("INVALID_HASH_ROUNDS", "SCRYPT rounds must be 1…8")
            }
            guard let cost = algorithm.memoryCost, ImportedPasswordHash.firebaseMemoryCost.contains(cost) else {
                throw AuthError("INVALID_MEMORY_COST", "SCRYPT memoryCost must be 1…14")
            }
        case "STANDARD_SCRYPT":
            guard let n = algorithm.cpuMemoryCost, (2...ImportedPasswordHash.scryptMaximumN).contains(n),
                n & (n - 1) == 0,
                let r = algorithm.blockSize, (1...ImportedPasswordHash.scryptMaximumR).contains(r),
                let p = algorithm.parallelization, (1...ImportedPasswordHash.scryptMaximumP).contains(p)
            else {
                throw AuthError(
                    "INVALID_HASH_PARAMETERS",
                    "STANDARD_SCRYPT needs cpuMemCost a power of two up to \(ImportedPasswordHash.scryptMaximumN), "
                        + "blockSize up to \(ImportedPasswordHash.scryptMaximumR), parallelization up to \(ImportedPasswordHash.scryptMaximumP)"
                )
            }
        case "PBKDF2_SHA256", "PBKDF_SHA1":
            guard let rounds = algorithm.rounds, ImportedPasswordHash.pbkdf2Rounds.contains(rounds) else {
                throw AuthError("INVALID_HASH_ROUNDS", "\(algorithm.name) rounds must be 1…120000")
            }
        case "HMAC_MD5", "HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512":
            guard algorithm.signerKey?.isEmpty == false else { throw AuthError("MISSING_SIGNER_KEY") }
        case "MD5", "SHA1", "SHA256", "SHA512":
            guard let rounds = algorithm.rounds, ImportedPasswordHash.digestRounds.contains(rounds),
                algorithm.name == "MD5" || rounds >= 1
            else {
                throw AuthError(
                    "INVALID_HASH_ROUNDS", "\(algorithm.name) rounds must be \(algorithm.name == "MD5" ? 0 : 1)…8192")
            }
        case "BCRYPT":
            break
        default:
            throw AuthError.notImplemented("hashAlgorithm \(algorithm.name) is not supported by Hearth")
        }
    }

    private static func importRow(
        _ imported: ImportedUser, algorithm: PasswordHashAlgorithm?, now: Int64, seconds: Int64,
        in db: any AccountRows
    ) throws {
        guard let uid = imported.localID, !uid.isEmpty else { throw AuthError.missingLocalID }
        guard uid.utf8.count <= 128 else { throw AuthError("INVALID_LOCAL_ID") }
        var user =
            try UserRows.user(uid: uid, in: db)
            ?? UserRecord(uid: uid, validSince: seconds, createdAt: imported.createdAt ?? now)
        if let email = imported.email {
            guard Validation.isValidEmail(email) else { throw AuthError.invalidEmail }
            user.email = Validation.canonicalEmail(email)
        }
        if let phone = imported.phoneNumber {
            guard Validation.isValidPhoneNumber(phone) else { throw AuthError("INVALID_PHONE_NUMBER") }
            user.phoneNumber = phone
        }
        if let claims = imported.customAttributes {
            try Validation.checkCustomClaims(claims)
            user.customClaims = claims == "{}" ? nil : claims
        }
        user.emailVerified = imported.emailVerified
        user.displayName = imported.displayName ?? user.displayName
        user.photoURL = imported.photoURL ?? user.photoURL
        user.disabled = imported.disabled
        if let created = imported.createdAt { user.createdAt = created }
        if let login = imported.lastLoginAt { user.lastLoginAt = login }
        if let hash = imported.passwordHash, let algorithm {
            let salt = imported.salt ?? []
            let stored: ImportedPasswordHash =
                switch algorithm.name {
                case "SCRYPT":
                    .firebaseScrypt(
                        signerKey: algorithm.signerKey ?? [], saltSeparator: algorithm.saltSeparator, salt: salt,
                        rounds: algorithm.rounds ?? 0, memoryCost: algorithm.memoryCost ?? 0, hash: hash)
                case "BCRYPT":
                    .bcrypt(String(decoding: hash, as: UTF8.self))
                case "STANDARD_SCRYPT":
                    .scrypt(
                        salt: salt, n: algorithm.cpuMemoryCost ?? 0, r: algorithm.blockSize ?? 0,
                        p: algorithm.parallelization ?? 0, hash: hash)
                case "PBKDF_SHA1":
                    .pbkdf2(.sha1, salt: salt, rounds: algorithm.rounds ?? 0, hash: hash)
                case let name where name.hasPrefix("HMAC_"):
                    .hmac(
                        Self.digest(named: String(name.dropFirst("HMAC_".count))), key: algorithm.signerKey ?? [],
                        salt: salt, saltFirst: algorithm.saltFirst, hash: hash)
                case "MD5", "SHA1", "SHA256", "SHA512":
                    .digest(
                        Self.digest(named: algorithm.name), salt: salt, rounds: algorithm.rounds ?? 1,
                        saltFirst: algorithm.saltFirst, hash: hash)
                default:
                    .pbkdf2(.sha256, salt: salt, rounds: algorithm.rounds ?? 0, hash: hash)
                }
            user.passwordHash = stored.stored
            user.passwordUpdatedAt = now
        }
        if try UserRows.user(uid: uid, in: db) == nil {
            try UserRows.insert(user, in: db)
        } else {
            try UserRows.update(user, in: db)
        }
        guard Set(imported.providers.map(\.providerID)).count == imported.providers.count else {
            throw AuthError("PROVIDER_ALREADY_LINKED")
        }
        for link in imported.providers {
            guard !link.providerID.isEmpty, !link.rawID.isEmpty else { throw AuthError("INVALID_PROVIDER_ID") }
            let owner = try ProviderLinkRows.owner(providerID: link.providerID, rawID: link.rawID, in: db)
            if let owner, owner != uid { throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED") }
            // Overwriting: the imported identity replaces the account's earlier one at that provider.
            if owner == nil { try ProviderLinkRows.delete(providerID: link.providerID, uid: uid, in: db) }
            try ProviderLinkRows.upsert(link, uid: uid, at: now, in: db)
        }
    }
}

extension AccountService {
    /// The digest an algorithm name's suffix names (`MD5`, `SHA1`, `SHA256`, `SHA512`); `check` has refused others.
    static func digest(named name: String) -> DigestAlgorithm {
        switch name {
        case "MD5": .md5
        case "SHA1": .sha1
        case "SHA512": .sha512
        default: .sha256
        }
    }
}
