import Foundation
import HearthCore
import HearthCrypto
import HearthLog
import Synchronization

/// The RSA keys that sign ID tokens, kept in `<data>/keys/`: one PEM file per key (owner-only permissions) and a
/// manifest, `keyring.json`, recording when each key was made and retired.
///
/// The newest key that is not retired signs. Rotation makes a new key and retires the previous one, which stays
/// published (JWKS) and accepted for `overlap` seconds — longer than an ID token lives — so tokens it signed keep
/// verifying until they expire. The manifest is re-read when it changes on disk (checked at most once a second),
/// so `hearth keys rotate` on a running server's data directory takes effect without a restart.
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
        var manifestModified: Date?
        var lastCheck: Int64 = .min
    }

    let directory: String
    private let clock: WallClock
    private let overlap: Int64
    private let logger: Logger
    private let state = Mutex(State())

    private var manifestPath: String { (directory as NSString).appendingPathComponent("keyring.json") }

    /// Loads the keys in `directory`, generating the first one if there is none that signs.
    init(
        directory: String, overlap: Int64, clock: WallClock = .system, logger: Logger = Logger(level: .error) { _ in }
    ) throws(AuthError) {
        self.logger = logger
        self.directory = directory
        self.overlap = overlap
        self.clock = clock
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .internal("cannot create the key directory: \(error.localizedDescription)")
        }
        try reload(force: true)
        if state.withLock({ $0.keys.contains { $0.retiredAt == nil } }) == false {
            _ = try rotate()
        }
    }

    /// The key that signs new tokens.
    func signingKey() throws(AuthError) -> Key {
        try reload(force: false)
        guard let key = state.withLock({ $0.keys.last { $0.retiredAt == nil } }) else {
            throw .internal("no signing key in \(directory)")
        }
        return key
    }

    /// The public key with ID `id`, if it is still accepted (active, or retired less than `overlap` ago).
    func verificationKey(id: String) -> RSAPublicKey? {
        if let key = accepted().first(where: { $0.id == id }) { return key.publicKey }
        // An unknown ID may be a key another process just added: re-read once, then give up.
        reloadReporting()
        return accepted().first { $0.id == id }?.publicKey
    }

    /// Re-reads the key directory; a failure keeps the keys already loaded and is logged.
    private func reloadReporting() {
        do {
            try reload(force: false)
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
        let key: RSAPrivateKey
        let publicKey: RSAPublicKey
        let pem: String
        do {
            key = try RSAPrivateKey.generate(bits: 2048)
            publicKey = try key.publicKey
            pem = try key.pemRepresentation()
        } catch {
            throw .internal("cannot generate a signing key: \(error)")
        }
        // The ID is a digest of the public key, so it names the key rather than the moment it was made.
        let id = SHA256.hash(publicKey.modulus).prefix(20).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let now = clock.seconds
        let file = (directory as NSString).appendingPathComponent("\(id).pem")
        guard
            FileManager.default.createFile(
                atPath: file, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600])
        else { throw .internal("cannot write a signing key to \(directory)") }
        try reload(force: true)
        var keys = state.withLock { $0.keys }
        for index in keys.indices where keys[index].retiredAt == nil { keys[index].retiredAt = now }
        keys.append(Key(id: id, privateKey: key, publicKey: publicKey, createdAt: now, retiredAt: nil))
        // Keys retired long enough ago that no token they signed can still be valid are deleted.
        let expired = keys.filter { ($0.retiredAt ?? .max) < now - overlap }
        keys.removeAll { ($0.retiredAt ?? .max) < now - overlap }
        try writeManifest(keys)
        for key in expired {
            try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent("\(key.id).pem"))
        }
        state.withLock { $0.keys = keys }
        return id
    }

    private func accepted() -> [Key] {
        let now = clock.seconds
        return state.withLock { $0.keys.filter { ($0.retiredAt ?? .max) >= now - overlap } }
    }

    private func writeManifest(_ keys: [Key]) throws(AuthError) {
        let entries: [JSONValue] = keys.map { key in
            .object([
                "kid": .string(key.id), "created": .integer(key.createdAt),
                "retired": key.retiredAt.map { .integer($0) } ?? .null,
            ])
        }
        let temporary = manifestPath + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(JSONValue.object(["keys": .array(entries)]).serialized(pretty: true)),
                attributes: [.posixPermissions: 0o600])
        else { throw .internal("cannot write \(manifestPath)") }
        // rename(2) replaces the manifest atomically: a reader sees the old or the new list, never half of one.
        guard rename(temporary, manifestPath) == 0 else { throw .internal("cannot replace \(manifestPath)") }
        state.withLock { $0.manifestModified = Self.modified(manifestPath) }
    }

    /// Re-reads the manifest and key files when the manifest changed (or when `force`).
    private func reload(force: Bool) throws(AuthError) {
        let now = clock.seconds
        let due = state.withLock { state -> Bool in
            guard force || state.lastCheck != now else { return false }
            state.lastCheck = now
            return true
        }
        guard due else { return }
        let modified = Self.modified(manifestPath)
        if !force, modified == state.withLock({ $0.manifestModified }) { return }
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            state.withLock { $0.manifestModified = nil }
            return
        }
        guard case .array(let entries)? = (try? JSONParser.parse([UInt8](data)))?["keys"] else {
            throw .internal("\(manifestPath) is not a key manifest")
        }
        let known = state.withLock { Dictionary($0.keys.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }) }
        var keys: [Key] = []
        for entry in entries {
            guard let id = entry["kid"]?.stringValue, let created = entry["created"]?.int64Value else { continue }
            let retired = entry["retired"]?.int64Value
            if var key = known[id] {
                key.retiredAt = retired
                keys.append(key)
                continue
            }
            let file = (directory as NSString).appendingPathComponent("\(id).pem")
            guard let pem = FileManager.default.contents(atPath: file).map({ String(decoding: $0, as: UTF8.self) }),
                let privateKey = try? RSAPrivateKey(pem: pem), let publicKey = try? privateKey.publicKey
            else { throw .internal("signing key \(id) listed in \(manifestPath) cannot be read") }
            keys.append(
                Key(id: id, privateKey: privateKey, publicKey: publicKey, createdAt: created, retiredAt: retired))
        }
        state.withLock { state in
            state.keys = keys
            state.manifestModified = modified
        }
    }

    private static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
