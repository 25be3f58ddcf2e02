public import Hearth

extension Document where Model: Modelable {
    /// Reads the document with ID `id` in the model's collection (``Referencable/collectionReference``), as
    /// Ballcap's `Document<Model>.get(id:completion:)`; `completion` runs on the main actor with the document, `nil`
    /// when it does not exist, or the error.
    public static func get(
        id: String, source: FirestoreSource = .default,
        completion: @escaping @MainActor (Document?, (any Error)?) -> Void
    ) {
        Model.collectionReference.document(id).getDocument(source: source) { snapshot, error in
            MainQueue.run(snapshot, error) { snapshot, error in
                guard let snapshot else { return completion(nil, error) }
                do {
                    completion(snapshot.exists ? try Document(snapshot: snapshot) : nil, nil)
                } catch {
                    completion(nil, error)
                }
            }
        }
    }

    /// Reads the document with ID `id` in the model's collection; `nil` when it does not exist.
    public static func get(id: String, source: FirestoreSource = .default) async throws -> Document? {
        try await get(Model.collectionReference.document(id), source: source)
    }
}
