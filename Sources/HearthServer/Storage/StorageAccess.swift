import Foundation
import HearthCore
import HearthHTTP
import HearthRules
import HearthStorage
import HearthStore

/// Who may do what to stored files: the one check every Storage route makes, on the storage rules in force
/// (`--storage-rules`; without a file open in `--dev`, closed otherwise). The admin credential bypasses rules; a
/// credential that does not verify is refused whatever the rules say.
struct StorageAccess: Sendable {
    let engine: RulesEngine
    let authenticator: RequestAuthenticator
    /// The documents `firestore.get()` and `firestore.exists()` read.
    let documents: any DocumentReader
    /// What `request.time` reads.
    var clock: WallClock = .system

    static let denied = HearthError(.permissionDenied, "Permission denied. The storage rules do not allow this.")

    /// Throws `UNAUTHENTICATED` for a bad credential, `PERMISSION_DENIED` when the rules do not allow `method` on
    /// `name` (for a list, the prefix). `existing` is the stored object (`resource`), `incoming` the object as the
    /// write would leave it (`request.resource`).
    func check(
        _ request: HTTPRequest, _ method: FirestoreMethod, bucket: String, name: String,
        existing: StoredObject? = nil, incoming: StorageRulesObject? = nil
    ) throws(HearthError) {
        let auth = try authenticator.authenticate(request)
        if auth?.isAdmin == true { return }
        let rules = engine.storageRules
        if rules === StorageRuleset.allowAll { return }
        let judged = StorageRequest(
            method: method, bucket: bucket, name: name, auth: auth, time: clock.now(),
            existing: existing.map(Self.rulesObject), incoming: incoming)
        let decision = rules.authorize(judged, reader: StoreDocumentReader(store: documents))
        if let failure = decision.failure { throw failure }
        guard decision.isAllowed else { throw Self.denied }
    }

    /// What rules see of a stored object.
    static func rulesObject(_ object: StoredObject) -> StorageRulesObject {
        let attributes = object.attributes
        return StorageRulesObject(
            name: object.name, bucket: object.bucket, size: object.size, contentType: attributes.contentType,
            metadata: attributes.custom, generation: object.generation, metageneration: object.metageneration,
            md5Hash: object.md5Hash, crc32c: object.crc32c, cacheControl: attributes.cacheControl,
            contentDisposition: attributes.contentDisposition, contentEncoding: attributes.contentEncoding,
            contentLanguage: attributes.contentLanguage,
            timeCreated: Timestamp(microseconds: object.timeCreatedMillis * 1000),
            updated: Timestamp(microseconds: object.updatedMillis * 1000))
    }

    /// What rules see of an object about to be written with `attributes` and `size` bytes.
    static func incoming(bucket: String, name: String, size: Int, attributes: ObjectAttributes) -> StorageRulesObject {
        StorageRulesObject(
            name: name, bucket: bucket, size: Int64(size), contentType: attributes.contentType,
            metadata: attributes.custom, cacheControl: attributes.cacheControl,
            contentDisposition: attributes.contentDisposition, contentEncoding: attributes.contentEncoding,
            contentLanguage: attributes.contentLanguage)
    }
}
