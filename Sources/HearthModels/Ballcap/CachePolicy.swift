/// Where ``DataRepresentable/get(_:completion:)`` reads an object's document from, as Ballcap's `CachePolicy`.
/// Firestore's own ``FirestoreSource`` (`get(source:)`) picks one place; a policy can combine two.
public enum CachePolicy: Sendable {
    /// The local cache only: `nil`, with the cache's error, when it holds no copy.
    case cacheOnly
    /// The server only: an error when it cannot be reached.
    case serverOnly
    /// The cached copy when there is one (however old), else the server's — Ballcap's default.
    case cacheElseServer
    /// The server's copy, or the cached one when the server cannot be reached (Firestore's `.default` source).
    case serverElseCache
    /// The cached copy at once, then the server's: the completion runs twice.
    case cacheThenServer
}
