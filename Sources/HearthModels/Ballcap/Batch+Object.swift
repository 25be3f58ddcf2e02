public import Hearth

extension Batch {
    /// An empty batch on `firestore` (the default app's when omitted), as Ballcap's `Batch()` is made.
    public convenience init(firestore: Firestore = Firestore.firestore()) { self.init(firestore) }

    /// Replaces (or creates, or with `merge` merges into) the object's document at `reference` (its own when `nil`),
    /// setting `updatedAt`, and `createdAt` unless the object was read from an existing document (it then keeps the
    /// stored one; Ballcap resets it on every save). A model that does not encode fails the commit.
    @MainActor
    @discardableResult
    public func save<T: Object & DataRepresentable>(
        _ document: T, reference: DocumentReference? = nil, merge: Bool = false
    ) -> Self {
        guard var fields = fields(of: document) else { return self }
        if document.shouldIncludedInTimestamp {
            fields[DocumentField.createdAt] =
                document.snapshot?.exists == true ? document.createdAt : FieldValue.serverTimestamp()
            fields[DocumentField.updatedAt] = FieldValue.serverTimestamp()
        }
        set(fields, at: reference ?? document.documentReference, merge: merge)
        return self
    }

    /// Writes the object's fields into its existing document at `reference` (its own when `nil`) and sets
    /// `updatedAt`; the commit fails with `notFound` when the document does not exist.
    @MainActor
    @discardableResult
    public func update<T: Object & DataRepresentable>(_ document: T, reference: DocumentReference? = nil) -> Self {
        guard let fields = fields(of: document) else { return self }
        update(fields, at: reference ?? document.documentReference, stamped: document.shouldIncludedInTimestamp)
        return self
    }

    /// Deletes the object's document at `reference` (its own when `nil`).
    @MainActor
    @discardableResult
    public func delete<T: Object>(_ document: T, reference: DocumentReference? = nil) -> Self {
        deleteDocument(reference ?? document.documentReference)
        return self
    }

    /// Saves each object into `collectionReference`, under its own ID.
    @MainActor
    @discardableResult
    public func save<T: Object & DataRepresentable>(
        _ documents: [T], to collectionReference: CollectionReference
    )
        -> Self
    {
        for document in documents { save(document, reference: collectionReference.document(document.id)) }
        return self
    }

    /// Commits every write atomically; `completion` runs on the main actor when the server has acknowledged them,
    /// or with the error (a ``WriteEncodingError`` writes nothing). The writes are queued, in call order, when this
    /// returns.
    @MainActor
    public func commit(_ completion: (((any Error)?) -> Void)? = nil) {
        guard let completion else { return commit(completion: { _ in }) }
        let bound = MainActorBound(completion)
        commit(completion: { error in MainQueue.run(error) { bound.value($0) } })
    }

    /// The object's encoded model; `nil`, with the failure recorded, when it has no data or does not encode.
    @MainActor
    private func fields<T: Object & DataRepresentable>(of document: T) -> [String: Any]? {
        guard let data = document.data else {
            record(WriteEncodingError(path: document.path, reason: "the object has no data"))
            return nil
        }
        do {
            return try ModelEncoding.fields(data)
        } catch {
            record(WriteEncodingError(path: document.path, reason: String(describing: error)))
            return nil
        }
    }
}
