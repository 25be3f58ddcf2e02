import Foundation
import HearthCore
import Synchronization

/// Signing keys in a directory (`<data>/keys/signing`): one PEM file per key (owner-only permissions) and a
/// manifest, `keyring.json`, recording when each key was made and retired. The manifest is replaced atomically, so
/// `hearth keys rotate` on a running server's data directory is seen by it at its next re-read.
package final class SigningKeyFiles: SigningKeyStorage {
    /// The directory.
    package let directory: String
    private var manifestPath: String { (directory as NSString).appendingPathComponent("keyring.json") }
    /// The keys as last read, and the manifest's modification time then: unchanged files are not parsed again.
    private let cache = Mutex<(modified: Date?, keys: [StoredSigningKey])?>(nil)

    /// Keys in `directory`, made (owner-only) if missing.
    package init(directory: String) throws(AuthError) {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .internal("cannot create the key directory: \(error.localizedDescription)")
        }
    }

    package func keys() throws(AuthError) -> [StoredSigningKey] {
        let modified = Self.modified(manifestPath)
        if let cached = cache.withLock({ $0 }), cached.modified == modified { return cached.keys }
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            cache.withLock { $0 = (nil, []) }
            return []
        }
        guard case .array(let entries)? = (try? JSONParser.parse([UInt8](data)))?["keys"] else {
            throw .internal("\(manifestPath) is not a key manifest")
        }
        let known = Dictionary(
            (cache.withLock { $0?.keys } ?? []).map { ($0.id, $0.pem) }, uniquingKeysWith: { first, _ in first })
        var keys: [StoredSigningKey] = []
        for entry in entries {
            guard let id = entry["kid"]?.stringValue, let created = entry["created"]?.int64Value else { continue }
            let file = (directory as NSString).appendingPathComponent("\(id).pem")
            guard
                let pem = known[id]
                    ?? FileManager.default.contents(atPath: file).map({ String(decoding: $0, as: UTF8.self) })
            else { throw .internal("signing key \(id) listed in \(manifestPath) cannot be read") }
            keys.append(StoredSigningKey(id: id, pem: pem, createdAt: created, retiredAt: entry["retired"]?.int64Value))
        }
        cache.withLock { $0 = (modified, keys) }
        return keys
    }

    package func update(
        _ change: ([StoredSigningKey]) throws(AuthError) -> [StoredSigningKey]?
    ) throws(AuthError) -> [StoredSigningKey] {
        let before = try keys()
        guard let after = try change(before) else { return before }
        let kept = Set(after.map(\.id))
        for key in after where !before.contains(where: { $0.id == key.id }) {
            let file = (directory as NSString).appendingPathComponent("\(key.id).pem")
            guard
                FileManager.default.createFile(
                    atPath: file, contents: Data(key.pem.utf8), attributes: [.posixPermissions: 0o600])
            else { throw .internal("cannot write a signing key to \(directory)") }
        }
        try writeManifest(after)
        for key in before where !kept.contains(key.id) {
            try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent("\(key.id).pem"))
        }
        cache.withLock { $0 = (Self.modified(manifestPath), after) }
        return after
    }

    private func writeManifest(_ keys: [StoredSigningKey]) throws(AuthError) {
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
    }

    private static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
