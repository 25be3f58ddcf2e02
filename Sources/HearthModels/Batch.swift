public import Hearth

/// Typed writes applied atomically in one commit (at most 500): `Batch(db).save(a).update(b).delete(c).commit()`.
/// ``Document/save()``, ``Document/update()`` and ``Document/delete()`` are one-write batches, so every typed write
/// is encoded here.
public final class Batch: Sendable {
    private let batch: WriteBatch

    /// An empty batch on `firestore`.
    public init(_ firestore: Firestore) { batch = firestore.batch() }

    /// Replaces (or creates) the document; sets `updatedAt`, and `createdAt` when the copy has none.
    /// - Throws: when the model does not encode.
    @discardableResult
    public func save<Model>(_ document: Document<Model>) throws -> Batch {
        var fields = try ModelEncoding.fields(document.data)
        fields[DocumentField.createdAt] = document.createdAt ?? FieldValue.serverTimestamp()
        fields[DocumentField.updatedAt] = FieldValue.serverTimestamp()
        batch.setData(fields, forDocument: document.reference)
        return self
    }

    /// Writes the model's top-level fields into the existing document and sets `updatedAt`; the commit fails with
    /// `notFound` when the document does not exist.
    /// - Throws: when the model does not encode.
    @discardableResult
    public func update<Model>(_ document: Document<Model>) throws -> Batch {
        var fields: [AnyHashable: Any] = [:]
        // Field paths, not dotted strings: a key such as "a.b" is one field of the model, not a nested one.
        for (key, value) in try ModelEncoding.fields(document.data) { fields[FieldPath([key])] = value }
        fields[FieldPath([DocumentField.updatedAt])] = FieldValue.serverTimestamp()
        batch.updateData(fields, forDocument: document.reference)
        return self
    }

    /// Deletes the document.
    @discardableResult
    public func delete<Model>(_ document: Document<Model>) -> Batch {
        batch.deleteDocument(document.reference)
        return self
    }

    /// Commits every write atomically; resumes when the server has acknowledged them.
    public func commit() async throws { try await batch.commit() }
}
