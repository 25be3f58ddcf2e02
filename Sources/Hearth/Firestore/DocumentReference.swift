import Foundation
import HearthCore

/// A document's location — Hearth's `DocumentReference`. Cheap to create; nothing is read until asked.
public final class DocumentReference: Sendable, Hashable, CustomStringConvertible {
    /// The database.
    public let firestore: Firestore
    let resourcePath: ResourcePath

    init(_ firestore: Firestore, _ path: ResourcePath) {
        self.firestore = firestore
        resourcePath = path
    }

    /// The document ID (last path segment).
    public var documentID: String { resourcePath.lastSegment }
    /// The slash-separated path (`users/alice`).
    public var path: String { resourcePath.description }
    /// The collection holding this document.
    public var parent: CollectionReference { CollectionReference(firestore, resourcePath.parent) }
    /// The full resource name (`projects/p/databases/(default)/documents/users/alice`).
    var resourceName: String { firestore.database.name(of: resourcePath) }

    /// A subcollection by relative path.
    public func collection(_ collectionPath: String) -> CollectionReference {
        let path = ResourcePath(segments: resourcePath.segments + Firestore.path(collectionPath).segments)
        precondition(path.isCollection, "Invalid collection path \"\(collectionPath)\".")
        return CollectionReference(firestore, path)
    }

    /// Same database and path.
    public static func == (lhs: DocumentReference, rhs: DocumentReference) -> Bool {
        lhs.resourcePath == rhs.resourcePath && lhs.firestore === rhs.firestore
    }

    /// Hashes the path.
    public func hash(into hasher: inout Hasher) { hasher.combine(resourcePath) }

    /// The path.
    public var description: String { "DocumentReference(\(path))" }

    // MARK: Writes

    /// Replaces the document with `documentData`, creating it if needed. Resumes when the server has acknowledged
    /// the write.
    public func setData(_ documentData: [String: Any]) async throws {
        try await commit(try WriteBuilder.set(resourcePath, documentData))
    }

    /// Writes `documentData`; with `merge`, only the given fields change and nested maps are merged.
    public func setData(_ documentData: [String: Any], merge: Bool) async throws {
        let write =
            merge
            ? try WriteBuilder.merge(resourcePath, documentData) : try WriteBuilder.set(resourcePath, documentData)
        try await commit(write)
    }

    /// Writes only `mergeFields` (dotted `String`s or ``FieldPath``s), taking their values from `documentData`.
    public func setData(_ documentData: [String: Any], mergeFields: [Any]) async throws {
        try await commit(try WriteBuilder.merge(resourcePath, documentData, fields: mergeFields))
    }

    /// Updates fields (keys are dotted paths or ``FieldPath``s) of an existing document.
    /// - Throws: `notFound` when the document does not exist.
    public func updateData(_ fields: [AnyHashable: Any]) async throws {
        try await commit(try WriteBuilder.update(resourcePath, fields))
    }

    /// Deletes the document (succeeds when it does not exist).
    public func delete() async throws {
        try await commit(Write(path: resourcePath, operation: .delete))
    }

    /// Completion-handler form of ``setData(_:)``.
    public func setData(_ documentData: [String: Any], completion: (((any Error)?) -> Void)? = nil) {
        submit(
            Result { () throws(FirestoreErrorCode) in try WriteBuilder.set(resourcePath, documentData) },
            callbackQueueBound(completion))
    }

    /// Completion-handler form of ``setData(_:merge:)``.
    public func setData(
        _ documentData: [String: Any], merge: Bool, completion: (((any Error)?) -> Void)? = nil
    ) {
        let completion = callbackQueueBound(completion)
        submit(
            Result { () throws(FirestoreErrorCode) in
                merge
                    ? try WriteBuilder.merge(resourcePath, documentData)
                    : try WriteBuilder.set(resourcePath, documentData)
            }, completion)
    }

    /// Completion-handler form of ``updateData(_:)``.
    public func updateData(_ fields: [AnyHashable: Any], completion: (((any Error)?) -> Void)? = nil) {
        submit(
            Result { () throws(FirestoreErrorCode) in try WriteBuilder.update(resourcePath, fields) },
            callbackQueueBound(completion))
    }

    /// Completion-handler form of ``delete()``.
    public func delete(completion: (((any Error)?) -> Void)? = nil) {
        submit(.success(Write(path: resourcePath, operation: .delete)), callbackQueueBound(completion))
    }

    // MARK: Reads

    /// Reads the document.
    /// - Parameter source: `.default` reads the server and falls back to the local cache when the server is
    ///   unreachable; `.cache` reads only the cache (failing with `unavailable` when the document is not cached).
    public func getDocument(source: FirestoreSource = .default) async throws -> DocumentSnapshot {
        if source == .cache { return try cached() }
        do throws(FirestoreErrorCode) {
            return try await read(transaction: nil)
        } catch {
            guard source == .default, error.code == .unavailable else { throw error }
            return try cached()
        }
    }

    /// The cached snapshot, marked `isFromCache`.
    private func cached() throws(FirestoreErrorCode) -> DocumentSnapshot {
        let (overlaid, pending) = firestore.cache.document(resourcePath)
        if pending {
            return DocumentSnapshot(
                reference: self, stored: overlaid, metadata: SnapshotMetadata(hasPendingWrites: true, isFromCache: true)
            )
        }
        guard let stored = firestore.cache.get(resourcePath) else {
            throw FirestoreErrorCode(
                .unavailable,
                "Failed to get document \(path) from cache: it has not been read before, and the client is offline or asked for the cache."
            )
        }
        return DocumentSnapshot(reference: self, stored: stored, metadata: SnapshotMetadata(isFromCache: true))
    }

    /// Completion-handler form of ``getDocument(source:)``.
    public func getDocument(
        source: FirestoreSource = .default, completion: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) {
        firestore.callbacks.complete(callbackQueueBound(completion)) { try await self.getDocument(source: source) }
    }

    /// Reads the document, optionally within a transaction; a missing document is a snapshot with no data.
    func read(transaction: String?) async throws(FirestoreErrorCode) -> DocumentSnapshot {
        do {
            let json = try await firestore.client.send(
                "GET", path: resourcePath, query: transaction.map { [("transaction", $0)] } ?? [])
            let stored = try firestore.client.document(json)
            firestore.cache.put(stored)
            return DocumentSnapshot(reference: self, stored: stored)
        } catch  where error.code == .notFound {
            firestore.cache.remove(resourcePath)
            return DocumentSnapshot(reference: self, stored: nil)
        }
    }

    private func commit(_ write: Write) async throws {
        try await firestore.commit([write])
    }

    private func submit(
        _ write: Result<Write, FirestoreErrorCode>, _ completion: (@Sendable ((any Error)?) -> Void)?
    ) {
        switch write {
        case .failure(let error): firestore.callbacks.async { completion?(error) }
        case .success(let write):
            let queue = firestore.writeQueue
            do {
                let id = try queue.enqueue([write])
                firestore.callbacks.completeVoid(completion) { try await queue.wait(for: id) }
            } catch {
                firestore.callbacks.async { completion?(error) }
            }
        }
    }
}
