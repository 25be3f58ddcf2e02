public import Hearth

extension DataRepresentable where Self: Object {
    /// Reads the document at `documentReference`; `completion` runs on the main actor with the object, `nil` when
    /// the document does not exist, or the error (a `DecodingError` when it does not fit `Model`).
    public static func get(
        documentReference: DocumentReference, source: FirestoreSource = .default,
        completion: @escaping (Self?, (any Error)?) -> Void
    ) {
        let completion = MainActorBound(completion)
        documentReference.getDocument(source: source) { snapshot, error in
            MainQueue.run(snapshot, error) { snapshot, error in
                guard let snapshot else { return completion.value(nil, error) }
                do {
                    completion.value(try object(snapshot), nil)
                } catch {
                    completion.value(nil, error)
                }
            }
        }
    }

    /// Reads the document with ID `id` in the type's collection (Ballcap's `Document.get(id:completion:)`).
    public static func get(
        id: String, source: FirestoreSource = .default, completion: @escaping (Self?, (any Error)?) -> Void
    ) {
        get(documentReference: collectionReference.document(id), source: source, completion: completion)
    }

    /// Reads the document at `documentReference`; `nil` when it does not exist.
    /// - Throws: the SDK's error, or a `DecodingError` when the document does not fit `Model`.
    public static func get(
        documentReference: DocumentReference, source: FirestoreSource = .default
    ) async throws
        -> Self?
    {
        try object(try await documentReference.getDocument(source: source))
    }

    /// Reads the document with ID `id` in the type's collection; `nil` when it does not exist.
    public static func get(id: String, source: FirestoreSource = .default) async throws -> Self? {
        try await get(documentReference: collectionReference.document(id), source: source)
    }

    /// Reads this object's document into it as Ballcap's `get(_:completion:)` does, choosing cache or server by
    /// `cachePolicy` (Ballcap's default: the cached copy when there is one, else the server's); `completion` gets the
    /// object, or `nil` (and the error, if any) when the document was not found where the policy looked. With
    /// ``CachePolicy/cacheThenServer`` it runs twice. Returns the object itself, as Ballcap does.
    @discardableResult
    public func get(
        _ cachePolicy: CachePolicy = .cacheElseServer, completion: ((Self?, (any Error)?) -> Void)? = nil
    ) -> Self {
        switch cachePolicy {
        case .cacheOnly: get(source: .cache, completion: completion)
        case .serverOnly: get(source: .server, completion: completion)
        case .serverElseCache: get(source: .default, completion: completion)
        case .cacheElseServer:
            get(source: .cache) { [self] object, _ in
                guard let object else { return get(source: .server, completion: completion) }
                completion?(object, nil)
            }
        case .cacheThenServer:
            get(source: .cache, completion: completion)
            get(source: .server, completion: completion)
        }
        return self
    }

    /// Reads this object's document into it (its data, `createdAt`, `updatedAt`) from `source`; `completion` gets
    /// the object, or `nil` when the document does not exist (the object's data is then left as it was).
    public func get(source: FirestoreSource, completion: ((Self?, (any Error)?) -> Void)? = nil) {
        let completion = MainActorBound(completion)
        documentReference.getDocument(source: source) { snapshot, error in
            MainQueue.run(snapshot, error) { [self] snapshot, error in
                guard let snapshot else {
                    completion.value?(nil, error)
                    return
                }
                do {
                    guard snapshot.exists else {
                        completion.value?(nil, nil)
                        return
                    }
                    try apply(snapshot)
                    completion.value?(self, nil)
                } catch {
                    completion.value?(nil, error)
                }
            }
        }
    }

    /// The object for `snapshot`, `nil` when the document does not exist.
    private static func object(_ snapshot: DocumentSnapshot) throws -> Self? {
        snapshot.exists ? try Self(snapshot: snapshot) : nil
    }
}
