public import Hearth

extension DataRepresentable where Self: Object {
    /// Replaces (or creates) the document at `reference` (the object's own when `nil`) with the model, setting
    /// `updatedAt` and, for a new document, `createdAt` (server time). The write is queued when this returns, so
    /// listeners show it at once; `completion` runs on the main actor when the server has acknowledged it.
    public func save(reference: DocumentReference? = nil, completion: (((any Error)?) -> Void)? = nil) {
        Batch(documentReference.firestore).save(self, reference: reference).commit(completion)
    }

    /// Writes the model's fields into the existing document (other fields stay) and sets `updatedAt`;
    /// `completion` gets `notFound` when the document does not exist.
    public func update(reference: DocumentReference? = nil, completion: (((any Error)?) -> Void)? = nil) {
        Batch(documentReference.firestore).update(self, reference: reference).commit(completion)
    }

    /// Deletes the document (succeeds when it does not exist).
    public func delete(reference: DocumentReference? = nil, completion: (((any Error)?) -> Void)? = nil) {
        Batch(documentReference.firestore).delete(self, reference: reference).commit(completion)
    }

    /// Merges `data` into the document (Ballcap's `merge(reference:data:completion:)`).
    public func merge(
        reference: DocumentReference? = nil, data: [String: Any], completion: (((any Error)?) -> Void)? = nil
    ) {
        let batch = Batch(documentReference.firestore)
        batch.set(data, at: reference ?? documentReference, merge: true)
        batch.commit(completion)
    }

    /// ``save(reference:completion:)``, resuming when the server has acknowledged the write.
    public func save(reference: DocumentReference? = nil) async throws {
        try await Batch(documentReference.firestore).save(self, reference: reference).commit()
    }

    /// ``update(reference:completion:)``, resuming when the server has acknowledged the write.
    public func update(reference: DocumentReference? = nil) async throws {
        try await Batch(documentReference.firestore).update(self, reference: reference).commit()
    }

    /// ``delete(reference:completion:)``, resuming when the server has acknowledged the write.
    public func delete(reference: DocumentReference? = nil) async throws {
        try await Batch(documentReference.firestore).delete(self, reference: reference).commit()
    }
}
