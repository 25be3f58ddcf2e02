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
    /// `notFound` when the document does not exist. A map holding an increment or array change is written field by
    /// field, so its other stored fields stay.
    /// - Throws: when the model does not encode.
    @discardableResult
    public func update<Model>(_ document: Document<Model>) throws -> Batch {
        var fields: [AnyHashable: Any] = [:]
        for (key, value) in try ModelEncoding.fields(document.data) { Self.add(value, at: [key], to: &fields) }
        fields[FieldPath([DocumentField.updatedAt])] = FieldValue.serverTimestamp()
        batch.updateData(fields, forDocument: document.reference)
        return self
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

    /// Deletes the document.
    @discardableResult
    public func delete<Model>(_ document: Document<Model>) -> Batch {
        batch.deleteDocument(document.reference)
        return self
    }

    /// Commits every write atomically; resumes when the server has acknowledged them.
    public func commit() async throws { try await batch.commit() }
}
