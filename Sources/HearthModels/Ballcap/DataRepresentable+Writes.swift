public import Hearth

extension DataRepresentable where Self: Object {
    /// Replaces (or creates) the document at `reference` (the object's own when `nil`) with the model, setting
    /// `updatedAt` and, for a new document, `createdAt` (server time). The write is queued when this returns, so
    /// listeners show it at once; `completion` runs on the main actor when the server has acknowledged it.
    ///
    /// New ``File``s in the model (with bytes not yet stored) are uploaded first, as Ballcap does, so the document
    /// records their download URLs: the write is then queued once they are stored, and a failed upload reaches
    /// `completion` with nothing written.
    public func save(reference: DocumentReference? = nil, completion: (((any Error)?) -> Void)? = nil) {
        afterUploadingNewFiles(completion) { [self] in
            Batch(documentReference.firestore).save(self, reference: reference).commit(completion)
        }
    }

    /// Writes the model's fields into the existing document (other fields stay) and sets `updatedAt`;
    /// `completion` gets `notFound` when the document does not exist. New ``File``s are uploaded first, as
    /// ``save(reference:completion:)`` does.
    public func update(reference: DocumentReference? = nil, completion: (((any Error)?) -> Void)? = nil) {
        afterUploadingNewFiles(completion) { [self] in
            Batch(documentReference.firestore).update(self, reference: reference).commit(completion)
        }
    }

    /// Deletes the document (succeeds when it does not exist). With `deletingFiles`, the stored bytes of every
    /// ``File`` in the model go first (one already gone counts as deleted), while storage rules that read the
    /// document to judge its files can still read it; a failed file deletion reaches `completion` with the document
    /// kept.
    public func delete(
        reference: DocumentReference? = nil, deletingFiles: Bool = false,
        completion: (((any Error)?) -> Void)? = nil
    ) {
        guard deletingFiles, let data else {
            return Batch(documentReference.firestore).delete(self, reference: reference).commit(completion)
        }
        let files = ModelFiles.files(in: data)
        let done = completion.map(MainActorBound.init)
        Task { @MainActor in
            do {
                try await ModelFiles.delete(files)
            } catch {
                done?.value(error)
                return
            }
            Batch(documentReference.firestore).delete(self, reference: reference).commit(done?.value)
        }
    }

    /// Runs `write` at once when the model holds no new file; otherwise uploads them first, then runs it, or hands
    /// the upload's error to `completion`.
    private func afterUploadingNewFiles(
        _ completion: (((any Error)?) -> Void)?, _ write: @escaping @MainActor () -> Void
    ) {
        let files = data.map { ModelFiles.files(in: $0) } ?? []
        guard files.contains(where: \.hasUnsavedBytes) else { return write() }
        let done = completion.map(MainActorBound.init)
        Task { @MainActor in
            do {
                try await ModelFiles.uploadNew(files)
            } catch {
                done?.value(error)
                return
            }
            write()
        }
    }

    /// Merges `data` into the document (Ballcap's `merge(reference:data:completion:)`).
    public func merge(
        reference: DocumentReference? = nil, data: [String: Any], completion: (((any Error)?) -> Void)? = nil
    ) {
        let batch = Batch(documentReference.firestore)
        batch.set(data, at: reference ?? documentReference, merge: true)
        batch.commit(completion)
    }

    /// ``save(reference:completion:)``, resuming when the server has acknowledged the write (new ``File``s are
    /// uploaded first).
    public func save(reference: DocumentReference? = nil) async throws {
        if let data { try await ModelFiles.uploadNew(in: data) }
        try await Batch(documentReference.firestore).save(self, reference: reference).commit()
    }

    /// ``update(reference:completion:)``, resuming when the server has acknowledged the write (new ``File``s are
    /// uploaded first).
    public func update(reference: DocumentReference? = nil) async throws {
        if let data { try await ModelFiles.uploadNew(in: data) }
        try await Batch(documentReference.firestore).update(self, reference: reference).commit()
    }

    /// ``delete(reference:deletingFiles:completion:)``, resuming when the server has acknowledged the write (with
    /// `deletingFiles`, the files' bytes are deleted first).
    public func delete(reference: DocumentReference? = nil, deletingFiles: Bool = false) async throws {
        if deletingFiles, let data { try await ModelFiles.delete(in: data) }
        try await Batch(documentReference.firestore).delete(self, reference: reference).commit()
    }
}
