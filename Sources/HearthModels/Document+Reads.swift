public import Hearth

extension Document {
    /// Reads the document at `reference`; `nil` when it does not exist.
    /// - Parameter source: as for `DocumentReference.getDocument(source:)`: `.default` falls back to the local cache
    ///   when the server is unreachable, `.cache` reads only the cache.
    public static func get(
        _ reference: DocumentReference, source: FirestoreSource = .default,
        decoder: Firestore.Decoder = Firestore.Decoder()
    ) async throws -> Document? {
        let snapshot = try await reference.getDocument(source: source)
        guard snapshot.exists else { return nil }
        return try Document(snapshot: snapshot, decoder: decoder)
    }

    /// Reads the stored version of this document; `nil` when it does not exist (any unsaved edit of this copy is
    /// not part of it).
    public func get(source: FirestoreSource = .default) async throws -> Document? {
        try await Self.get(reference, source: source)
    }

    /// The document at `reference` now and after every change; `nil` while it does not exist. Ending the iteration
    /// removes the listener; a document that no longer decodes as `Model` ends it with the `DecodingError`.
    public static func listen(
        _ reference: DocumentReference, decoder: Firestore.Decoder = Firestore.Decoder()
    ) -> AsyncThrowingStream<Document?, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Document?, any Error>.makeStream()
        let registration = reference.addSnapshotListener { snapshot, error in
            guard let snapshot else {
                continuation.finish(throwing: error)
                return
            }
            do {
                continuation.yield(snapshot.exists ? try Document(snapshot: snapshot, decoder: decoder) : nil)
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in registration.remove() }
        return stream
    }

    /// The stored versions of this document as they change (see ``listen(_:decoder:)``).
    public func listen() -> AsyncThrowingStream<Document?, any Error> { Self.listen(reference) }
}
