public import Hearth

extension Object {
    /// Where the document's files live in Storage: the document's path in its app's default bucket, as Ballcap
    /// places them (`File(object, name:)` stores at `storageReference.child(name)`).
    public nonisolated var storageReference: StorageReference {
        Storage.storage(app: documentReference.firestore.app).reference(withPath: path)
    }
}
