import Foundation
import HearthCore
import HearthCrypto
import HearthLog
import Synchronization

/// The RSA keys that sign ID tokens, kept in a ``SigningKeyStorage``: files in `<data>/keys/signing`, or the
/// PostgreSQL database every node shares.
///
/// The newest key that is not retired signs. Rotation makes a new key and retires the previous one, which stays
/// published (JWKS) and accepted for `overlap` seconds — longer than an ID token lives — so tokens it signed keep
/// verifying until they expire. The keyring is re-read at most once a second, and at once for a token naming a key
/// not yet seen, so `hearth keys rotate` (or another node's rotation) takes effect without a restart.
final class SigningKeys: Sendable {
    struct Key: Sendable {
        var id: String
        var privateKey: RSAPrivateKey
        var publicKey: RSAPublicKey
        var createdAt: Int64
        var retiredAt: Int64?
    }

    private struct State {
        var keys: [Key] = []
        var lastCheck: Int64 = .min
    }

    let storage: any SigningKeyStorage
    private let clock: WallClock
    private let overlap: Int64
    private let logger: Logger
    private let state = Mutex(State())

    /// Loads the keys in `storage`, making the first one if there is none that signs.
    init(
        storage: any SigningKeyStorage, overlap: Int64, clock: WallClock = .system,
        logger: Logger = Logger(level: .error) { _ in }
    ) throws(AuthError) {
        self.storage = storage
        self.logger = logger
        self.overlap = overlap
        self.clock = clock
        // In one step of the storage, so nodes starting together make one first key between them.
        let made = try Self.generate(at: clock.seconds)
        let keys = try storage.update { keys throws(AuthError) in
            keys.contains { $0.retiredAt == nil } ? nil : keys + [made]
        }
        try adopt(keys)
    }

    /// The key that signs new tokens.
    func signingKey() throws(AuthError) -> Key {
        try reload(force: false)
        guard let key = state.withLock({ $0.keys.last { $0.retiredAt == nil } }) else {
            throw .internal("no signing key on record")
        }
        return key
    }

    /// The public key with ID `id`, if it is still accepted (active, or retired less than `overlap` ago).
    func verificationKey(id: String) -> RSAPublicKey? {
        if let key = accepted().first(where: { $0.id == id }) { return key.publicKey }
        // An unknown ID may be a key another process or node just added: re-read once, then give up.
        reloadReporting(force: true)
        return accepted().first { $0.id == id }?.publicKey
    }

    /// Re-reads the keyring; a failure keeps the keys already loaded and is logged.
    private func reloadReporting(force: Bool = false) {
        do {
            try reload(force: force)
        } catch {
            logger.warning(
                "signing keys not re-read; the keys already loaded stay in use", ["error": .string(error.code)])
        }
    }

    /// The keys to publish as JWKS, newest first.
    func published() -> [Key] {
        reloadReporting()
        return accepted().reversed()
    }

    /// Every key on record, oldest first, for `hearth keys list`.
    func all() -> [Key] { state.withLock { $0.keys } }

    /// Makes a new signing key and retires the current one. Returns the new key's ID.
    func rotate() throws(AuthError) -> String {
        let now = clock.seconds
        let made = try Self.generate(at: now)
        let overlap = self.overlap
        let keys = try storage.update { keys in
            var keys = keys
            for index in keys.indices where keys[index].retiredAt == nil { keys[index].retiredAt = now }
            keys.append(made)
            // Keys retired long enough ago that no token they signed can still be valid are deleted.
            keys.removeAll { ($0.retiredAt ?? .max) < now - overlap }
            return keys
        }
        try adopt(keys)
        return made.id
    }

    /// A new 2048-bit key whose ID is a digest of its public key, so it names the key rather than the moment it
    /// was made.
    private static func generate(at now: Int64) throws(AuthError) -> StoredSigningKey {
        do {
            let key = try RSAPrivateKey.generate(bits: 2048)
            let id = SHA256.hash(try key.publicKey.modulus).prefix(20)
                .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return StoredSigningKey(id: id, pem: try key.pemRepresentation(), createdAt: now, retiredAt: nil)
        } catch {
            throw .internal("cannot generate a signing key: \(error)")
        }
    }

    private func accepted() -> [Key] {
        let now = clock.seconds
        return state.withLock { $0.keys.filter { ($0.retiredAt ?? .max) >= now - overlap } }
    }

    /// Re-reads the keyring, at most once a second unless `force`.
    private func reload(force: Bool) throws(AuthError) {
        let now = clock.seconds
        let due = state.withLock { state -> Bool in
            guard force || state.lastCheck != now else { return false }
            state.lastCheck = now
            return true
        }
        guard due else { return }
        try adopt(try storage.keys())
    }

    /// Makes `stored` the keys in use, parsing only the keys not already loaded.
    private func adopt(_ stored: [StoredSigningKey]) throws(AuthError) {
        let known = state.withLock { Dictionary($0.keys.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }) }
        var keys: [Key] = []
        for entry in stored {
            if var key = known[entry.id] {
                key.retiredAt = entry.retiredAt
                keys.append(key)
                continue
            }
            guard let privateKey = try? RSAPrivateKey(pem: entry.pem), let publicKey = try? privateKey.publicKey else {
                throw .internal("signing key \(entry.id) cannot be read")
            }
            keys.append(
                Key(
                    id: entry.id, privateKey: privateKey, publicKey: publicKey, createdAt: entry.createdAt,
                    retiredAt: entry.retiredAt))
        }
        state.withLock { $0.keys = keys }
    }
}
