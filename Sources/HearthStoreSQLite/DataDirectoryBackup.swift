import Foundation
public import HearthCore
import HearthSQLite

/// `hearth backup` and `hearth restore`: a consistent copy of a data directory taken while its server serves writes,
/// and putting one in place.
///
/// Every database file is copied — each project's, each named database's — with `VACUUM INTO`, which reads one
/// snapshot of the write-ahead-log database and holds no lock a writer waits for, so each copy is every commit up to
/// a moment and nothing after it. Files go with them: each project's deployed rules, the blobs the storage snapshot names (immutable once written; one deleted while the backup ran makes it take the
/// storage snapshot again) and the key directory (signing keys, custom-token keys). What a running server keeps only
/// to run — the lock, the disk reserve, uploads in progress — is left out.
public enum DataDirectoryBackup {
    /// What a backup copied.
    public struct Summary: Sendable, Equatable {
        /// Bytes of the database copies.
        public var databaseBytes: Int
        /// Blobs (stored files) copied.
        public var blobs: Int
    }

    static let storageDatabase = "storage/storage.sqlite"
    static let blobDirectory = "storage/blobs"
    static let keyDirectory = "keys"
    /// Rules deployed through the endpoints (the server's `DeployedRules`), in each project's directory.
    static let rulesDirectory = "rules"

    /// Copies `data` into `output`, which must not exist yet (it is made, and removed again if the backup fails).
    public static func backup(data: String, to output: String) throws(HearthError) -> Summary {
        let manager = FileManager.default
        let main = (data as NSString).appendingPathComponent(SQLiteDocumentStore.fileName)
        guard manager.fileExists(atPath: main) else {
            throw .notFound("\(data) holds no Hearth database (\(SQLiteDocumentStore.fileName)).")
        }
        guard !manager.fileExists(atPath: output) else {
            throw .alreadyExists("\(output) exists; a backup goes to a new directory.")
        }
        do {
            try manager.createDirectory(atPath: output, withIntermediateDirectories: true)
            var summary = Summary(databaseBytes: 0, blobs: 0)
            for directory in DataDirectoryLayout.databaseDirectories(in: data) {
                let target = (output as NSString).appendingPathComponent(directory)
                try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
                summary.databaseBytes += try vacuum(
                    ((data as NSString).appendingPathComponent(directory) as NSString)
                        .appendingPathComponent(SQLiteDocumentStore.fileName),
                    into: (target as NSString).appendingPathComponent(SQLiteDocumentStore.fileName))
            }
            for directory in DataDirectoryLayout.projectDirectories(in: data) {
                let rules = ((data as NSString).appendingPathComponent(directory) as NSString)
                    .appendingPathComponent(rulesDirectory)
                guard manager.fileExists(atPath: rules) else { continue }
                try manager.copyItem(
                    atPath: rules,
                    toPath: ((output as NSString).appendingPathComponent(directory) as NSString)
                        .appendingPathComponent(rulesDirectory))
            }
            let storage = (data as NSString).appendingPathComponent(storageDatabase)
            if manager.fileExists(atPath: storage) {
                let (bytes, blobs) = try backupStorage(data: data, output: output)
                summary.databaseBytes += bytes
                summary.blobs = blobs
            }
            let keys = (data as NSString).appendingPathComponent(keyDirectory)
            if manager.fileExists(atPath: keys) {
                try manager.copyItem(atPath: keys, toPath: (output as NSString).appendingPathComponent(keyDirectory))
            }
            return summary
        } catch {
            try? manager.removeItem(atPath: output)
            throw error as? HearthError ?? .internal("The backup failed: \(error)")
        }
    }

    /// Puts the backup at `backup` in place as `data`, which no server may have open (its lock is taken) and which
    /// must be empty or absent: restoring never merges. The files land under a temporary name beside `data` and are
    /// moved in one by one only once all are copied, so a restore that fails leaves `data` as it was.
    public static func restore(from backup: String, to data: String) throws(HearthError) {
        let manager = FileManager.default
        guard manager.fileExists(atPath: (backup as NSString).appendingPathComponent(SQLiteDocumentStore.fileName))
        else { throw .notFound("\(backup) is not a Hearth backup (no \(SQLiteDocumentStore.fileName)).") }
        try fill(data, verb: "restore") { staging throws(HearthError) in
            do {
                try manager.copyItem(atPath: backup, toPath: staging)
            } catch {
                throw .internal("The restore failed: \(error.localizedDescription)")
            }
        }
        for directory in DataDirectoryLayout.databaseDirectories(in: data) {
            try check(
                ((data as NSString).appendingPathComponent(directory) as NSString)
                    .appendingPathComponent(SQLiteDocumentStore.fileName))
        }
    }

    /// Fills the empty (or absent) data directory `data`, which no server may have open (its lock is held
    /// throughout), with what `build` makes in a staging directory beside it: `build` gets the staging path (not yet
    /// existing), and its files are moved in only once it returns, so a `build` that fails leaves `data` as it was.
    /// `hearth restore` and `hearth import` go through here.
    public static func fill(
        _ data: String, verb: String, _ build: (_ staging: String) throws(HearthError) -> Void
    ) throws(HearthError) {
        let manager = FileManager.default
        let existed = manager.fileExists(atPath: data)
        do {
            try manager.createDirectory(atPath: data, withIntermediateDirectories: true)
        } catch {
            throw .internal("Cannot create \(data): \(error.localizedDescription)")
        }
        do {
            try fillLocked(data, verb: verb, build)
        } catch {
            // A directory made for this leaves nothing behind, not even its lock file.
            if !existed { try? manager.removeItem(atPath: data) }
            throw error
        }
    }

    private static func fillLocked(
        _ data: String, verb: String, _ build: (_ staging: String) throws(HearthError) -> Void
    ) throws(HearthError) {
        let manager = FileManager.default
        let lock = try DataDirectoryLock(directory: data)
        defer { lock.release() }
        let kept: Set<String> = [DataDirectoryLock.fileName, SQLiteDocumentStore.reserveFileName]
        let present = ((try? manager.contentsOfDirectory(atPath: data)) ?? []).filter { !kept.contains($0) }
        guard present.isEmpty else {
            throw .failedPrecondition(
                "\(data) is not empty (\(present.sorted().prefix(5).joined(separator: ", "))); \(verb) into a new directory."
            )
        }
        let staging = data + ".\(verb)-" + UUID().uuidString
        defer { try? manager.removeItem(atPath: staging) }
        try build(staging)
        do {
            for name in try manager.contentsOfDirectory(atPath: staging) where !kept.contains(name) {
                try manager.moveItem(
                    atPath: (staging as NSString).appendingPathComponent(name),
                    toPath: (data as NSString).appendingPathComponent(name))
            }
        } catch {
            throw .internal("The \(verb) failed: \(error.localizedDescription)")
        }
    }

    /// The storage database's snapshot and the blobs it names, again from the start if a named blob was deleted
    /// before it was copied.
    private static func backupStorage(data: String, output: String) throws -> (bytes: Int, blobs: Int) {
        let manager = FileManager.default
        let source = (data as NSString).appendingPathComponent(storageDatabase)
        let target = (output as NSString).appendingPathComponent(storageDatabase)
        let blobs = (output as NSString).appendingPathComponent(blobDirectory)
        for _ in 0..<5 {
            try? manager.removeItem(atPath: (output as NSString).appendingPathComponent("storage"))
            try manager.createDirectory(atPath: blobs, withIntermediateDirectories: true)
            let bytes = try vacuum(source, into: target)
            let copy = try SQLiteConnection(path: target)
            defer { copy.close() }
            // Sessions of uploads in progress point at files a backup does not carry.
            try copy.execute("DELETE FROM upload_sessions")
            let names = try copy.fetchAll("SELECT DISTINCT blob FROM objects").compactMap { $0.string(0) }
            var complete = true
            for name in names where name.allSatisfy(\.isHexDigit) {
                let from = ((data as NSString).appendingPathComponent(blobDirectory) as NSString)
                    .appendingPathComponent(name)
                do {
                    try manager.copyItem(atPath: from, toPath: (blobs as NSString).appendingPathComponent(name))
                } catch {
                    complete = false
                    break
                }
            }
            if complete { return (bytes, names.count) }
        }
        throw HearthError(.unavailable, "Stored files kept changing during the backup; run it again.")
    }

    /// `VACUUM INTO` `target` from a read-only connection to `source`; returns the copy's size.
    private static func vacuum(_ source: String, into target: String) throws -> Int {
        var options = SQLiteConnection.Options()
        options.readOnly = true
        options.create = false
        let connection = try SQLiteConnection(path: source, options: options)
        defer { connection.close() }
        // INTO takes any expression: the path is a bound value, never SQL text.
        try connection.execute("VACUUM INTO \(target)")
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        return (attributes[.size] as? Int) ?? 0
    }

    /// `PRAGMA integrity_check` must answer `ok`.
    static func check(_ path: String) throws(HearthError) {
        do {
            let connection = try SQLiteConnection(path: path)
            defer { connection.close() }
            let answer = try connection.fetchOne("PRAGMA integrity_check")?.string(0)
            guard answer == "ok" else {
                throw HearthError(.dataLoss, "\(path) fails its integrity check: \(answer ?? "no answer")")
            }
        } catch let error as HearthError {
            throw error
        } catch {
            throw .internal("Cannot check \(path): \(error)")
        }
    }
}
