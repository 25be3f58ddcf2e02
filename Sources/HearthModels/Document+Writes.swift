extension Document {
    /// Writes the whole document, replacing whatever was stored; sets `updatedAt`, and `createdAt` the first time.
    /// Resumes when the server has acknowledged the write. New ``File``s the model holds (with bytes not yet
    /// stored) are uploaded first, so the document records their download URLs.
    ///
    /// A replacement starts from an empty document, so an ``Incrementable/increment(_:)`` property counts from zero
    /// here; use ``update()`` to change an existing counter.
    public func save() async throws {
        try await ModelFiles.uploadNew(in: data)
        try await Batch(reference.firestore).save(self).commit()
    }

    /// Writes the model's fields into the existing document (other fields stay) and sets `updatedAt`.
    /// Properties that are `nil` are left as stored (use `@ExplicitNull` to store `null`).
    /// New ``File``s the model holds are uploaded first, as ``save()`` does.
    /// - Throws: `notFound` when the document does not exist.
    public func update() async throws {
        try await ModelFiles.uploadNew(in: data)
        try await Batch(reference.firestore).update(self).commit()
    }

    /// Deletes the document (succeeds when it does not exist). With `deletingFiles`, the stored bytes of every
    /// ``File`` the model holds go first (one already gone counts as deleted), while storage rules that read the
    /// document to judge its files can still read it; a failed file deletion throws with the document kept.
    public func delete(deletingFiles: Bool = false) async throws {
        if deletingFiles { try await ModelFiles.delete(in: data) }
        try await Batch(reference.firestore).delete(self).commit()
    }
}
