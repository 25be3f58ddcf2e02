public import Hearth
import Synchronization

/// Typed writes applied atomically in one commit (at most 500): `Batch(db).save(a).update(b).delete(c).commit()`.
/// ``Document/save()``, ``Document/update()`` and ``Document/delete()`` are one-write batches, and so are the
/// Ballcap-shaped ``Object`` writes, so every typed write is encoded here.
public final class Batch: Sendable {
    private let batch: WriteBatch
    /// The first write that could not be encoded; it fails the commit.
    private let failure = Mutex<WriteEncodingError?>(nil)

    /// An empty batch on `firestore`.
    public init(_ firestore: Firestore) { batch = firestore.batch() }

    /// Replaces (or creates) the document; sets `updatedAt`, and `createdAt` when the copy has none.
    /// - Throws: when the model does not encode.
    @discardableResult
    public func save<Model>(_ document: Document<Model>) throws -> Batch {
        var fields = try ModelEncoding.fields(document.data)
        fields[DocumentField.createdAt] = document.createdAt ?? FieldValue.serverTimestamp()
        fields[DocumentField.updatedAt] = FieldValue.serverTimestamp()
        set(fields, at: document.reference, merge: false)
        return self
    }

    /// Writes the model's top-level fields into the existing document and sets `updatedAt`; the commit fails with
    /// `notFound` when the document does not exist. A map holding an increment or array change is written field by
    /// field, so its other stored fields stay.
    /// - Throws: when the model does not encode.
    @discardableResult
    public func update<Model>(_ document: Document<Model>) throws -> Batch {
        update(try ModelEncoding.fields(document.data), at: document.reference, stamped: true)
        return self
    }

    /// Deletes the document.
    @discardableResult
    public func delete<Model>(_ document: Document<Model>) -> Batch {
        deleteDocument(document.reference)
        return self
    }

    /// Commits every write atomically; resumes when the server has acknowledged them.
    /// - Throws: ``WriteEncodingError`` when a write could not be encoded (nothing is written), or the server's error.
    public func commit() async throws {
        if let failure = failure.withLock({ $0 }) { throw failure }
        try await batch.commit()
    }

    // MARK: The writes every typed form goes through

    /// Sets the document's fields (merging them into the stored ones with `merge`).
    func set(_ fields: [String: Any], at reference: DocumentReference, merge: Bool) {
        batch.setData(fields, forDocument: reference, merge: merge)
    }

    /// Writes a model's encoded fields into the existing document, and `updatedAt` when `stamped`.
    func update(_ model: [String: Any], at reference: DocumentReference, stamped: Bool) {
        var fields: [AnyHashable: Any] = [:]
        for (key, value) in model { Self.add(value, at: [key], to: &fields) }
        if stamped { fields[FieldPath([DocumentField.updatedAt])] = FieldValue.serverTimestamp() }
        batch.updateData(fields, forDocument: reference)
    }

    /// Deletes the document at `reference`.
    func deleteDocument(_ reference: DocumentReference) { batch.deleteDocument(reference) }

    /// Remembers a write that could not be encoded: the commit fails with it and writes nothing.
    func record(_ error: WriteEncodingError) {
        failure.withLock { if $0 == nil { $0 = error } }
    }

    /// The completion-handler commit: the writes are queued, in call order, when this returns; `completion` runs on
    /// the SDK's callback queue, or on the main queue with the encoding failure.
    func commit(completion: @escaping @Sendable ((any Error)?) -> Void) {
        if let failure = failure.withLock({ $0 }) {
            MainQueue.later { completion(failure) }
            return
        }
        batch.commit(completion: completion)
    }

    /// Adds `value` at `path` to an update. A map holding a field transform is written field by field: written whole,
    /// it would replace the stored map first, and a nested increment would count from zero. Paths are `FieldPath`s,
    /// not dotted strings, so a key such as "a.b" stays one field.
    private static func add(_ value: Any, at path: [String], to fields: inout [AnyHashable: Any]) {
        if let map = value as? [String: Any], !map.isEmpty, holdsTransform(map) {
            for (key, nested) in map { add(nested, at: path + [key], to: &fields) }
        } else {
            fields[FieldPath(path)] = value
        }
    }

    private static func holdsTransform(_ value: Any) -> Bool {
        if value is FieldValue { return true }
        return (value as? [String: Any])?.values.contains(where: holdsTransform) ?? false
    }
}

/// A typed write whose model could not be encoded (or an ``Object`` without data); the batch holding it writes
/// nothing.
public struct WriteEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The document the write was for.
    public let path: String
    /// Why it could not be encoded.
    public let reason: String

    /// What failed, naming the document.
    public var description: String { "The write to \(path) could not be encoded: \(reason)" }
}
