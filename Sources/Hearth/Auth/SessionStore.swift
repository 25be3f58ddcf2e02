import Foundation

#if canImport(Security)
import Security
#endif

/// Keeps the signed-in session across launches: the keychain on Apple platforms, an owner-only file elsewhere.
protocol SessionStore: Sendable {
    func load() -> AuthSession?
    func save(_ session: AuthSession?) throws(AuthErrorCode)
}

/// The store for an app: one entry per app name and project, so two apps never share a session.
func makeSessionStore(for app: HearthApp) -> any SessionStore {
    let key = "\(app.name).\(app.options.projectID)"
    #if canImport(Security)
    if app.options.storageDirectory == nil { return KeychainSessionStore(account: key) }
    #endif
    let safe = String(key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
    return FileSessionStore(
        url: app.options.resolvedStorageDirectory.appendingPathComponent("auth-\(safe).json"))
}

/// A JSON file readable and writable by its owner only (0600), in a 0700 directory; replaced atomically so a crash
/// never leaves half a session behind.
struct FileSessionStore: SessionStore {
    let url: URL

    func load() -> AuthSession? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(AuthSession.self, from: data)
    }

    func save(_ session: AuthSession?) throws(AuthErrorCode) {
        let manager = FileManager.default
        guard let session else {
            try? manager.removeItem(at: url)
            return
        }
        do {
            let directory = url.deletingLastPathComponent()
            try manager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let data = try JSONEncoder().encode(session)
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
            // Created with 0600 from the start, so the token is never readable by others, even briefly.
            guard manager.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown) }
            // rename(2) replaces the old file atomically (FileManager.replaceItemAt is unreliable on Linux).
            guard rename(temporary.path, url.path) == 0 else {
                try? manager.removeItem(at: temporary)
                throw CocoaError(.fileWriteUnknown)
            }
        } catch {
            throw AuthErrorCode(.keychainError, "Cannot write the session file: \(error.localizedDescription)")
        }
    }
}

#if canImport(Security)
/// A generic-password keychain item holding the session JSON.
struct KeychainSessionStore: SessionStore {
    let account: String
    private let service = "dev.hearth.auth"

    private var query: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    func load() -> AuthSession? {
        var search = query
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        guard SecItemCopyMatching(search as CFDictionary, &result) == errSecSuccess, let data = result as? Data
        else { return nil }
        return try? JSONDecoder().decode(AuthSession.self, from: data)
    }

    func save(_ session: AuthSession?) throws(AuthErrorCode) {
        SecItemDelete(query as CFDictionary)
        guard let session else { return }
        guard let data = try? JSONEncoder().encode(session) else {
            throw AuthErrorCode(.keychainError, "Cannot encode the session.")
        }
        var item = query
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else {
            throw AuthErrorCode(.keychainError, "Keychain error \(status).")
        }
    }
}
#endif
