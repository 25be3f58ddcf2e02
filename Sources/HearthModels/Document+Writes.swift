extension Document {
    /// Writes the whole document, replacing whatever was stored; sets `updatedAt`, and `createdAt` the first time.
    /// Resumes when the server has acknowledged the write.
    ///
    /// A replacement starts from an empty document, so an ``Incrementable/increment(_:)`` property counts from zero
    /// here; use ``update()`` to change an existing counter.
    public func save() async throws {
        try await Batch(reference.firestore).save(self).commit()
    }

    /// Writes the model's fields into the existing document (other fields stay) and sets `updatedAt`.
    /// Properties that are `nil` are left as stored (use `@ExplicitNull` to store `null`).
    /// - Throws: `notFound` when the document does not exist.
    public func update() async throws {
        try await Batch(reference.firestore).update(self).commit()
    }

    /// Deletes the document (succeeds when it does not exist).
    public func delete() async throws {
        try await Batch(reference.firestore).delete(self).commit()
    }
}
