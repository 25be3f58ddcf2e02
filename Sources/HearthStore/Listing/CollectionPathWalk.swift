/// A walk over the distinct first segments of the `collection` paths of stored documents below a prefix — the
/// collection IDs under a document, or the document IDs under a collection that have documents nested below them —
/// with one seek per segment: each segment's subtree is skipped in one jump, so the cost follows the segments
/// visited, not the documents below them. Segments come in path order (`id + "/"`), which is not ID order where
/// one ID prefixes another followed by a byte below `/` (`posts-old/…` sorts before `posts/…`).
package enum CollectionPathWalk {
    /// Calls `visit` with each first segment after `prefix` (the paths in [`start`, `upper`), `start` itself
    /// included or not) until it returns `false` or the paths run out.
    package static func firstSegments(
        prefix: String, upper: String, from start: String, inclusive: Bool, in scanner: any DocumentScanner,
        _ visit: (String) throws -> Bool
    ) throws {
        var (position, inclusive) = (start, inclusive)
        while true {
            guard let collection = try scanner.firstCollectionPath(from: position, inclusive: inclusive, below: upper),
                collection.hasPrefix(prefix)
            else { return }
            let segment = String(collection.dropFirst(prefix.count).prefix { $0 != "/" })
            guard try visit(segment) else { return }
            if collection.hasPrefix(prefix + segment + "/") {
                (position, inclusive) = (prefix + segment + "0", true)  // "0" follows "/": past the whole subtree
            } else {
                (position, inclusive) = (collection, false)  // past the documents of this one collection
            }
        }
    }
}
