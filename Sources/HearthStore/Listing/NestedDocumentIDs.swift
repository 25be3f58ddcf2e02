package import HearthCore

/// The IDs in a collection under which documents are nested (`users/b` when `users/b/posts/p` exists), whether or
/// not the document itself exists: what `showMissing` adds to a listing.
///
/// Documents below `C/id` have a `collection` starting `C/id/`, so the IDs are the first segments of the collection
/// paths after `C/` (``CollectionPathWalk``). That walk runs in the order of `id + "/"`, which differs from ID order
/// only where one ID is a prefix of another followed by a byte below `/` (`b-1/…` sorts before `b/…`, though
/// `b` < `b-1`); so after the walk, such prefixes of the IDs found are checked directly.
package enum NestedDocumentIDs {
    /// The first `limit` such IDs greater than `after` (all of them in ID order would be among these or before).
    package static func first(
        _ limit: Int, in collection: ResourcePath, after: String?, scanner: any DocumentScanner
    ) throws -> [String] {
        let prefix = collection.description + "/"
        let upper = collection.description + "0"  // "0" follows "/"
        func isAfter(_ id: String) -> Bool { after.map { Value.compareBytes(id.utf8, $0.utf8) > 0 } ?? true }
        var found: [String] = []
        // Every ID greater than `after` has its subtree above `prefix + after`.
        try CollectionPathWalk.firstSegments(
            prefix: prefix, upper: upper, from: prefix + (after ?? ""), inclusive: after == nil, in: scanner
        ) { id in
            if isAfter(id) { found.append(id) }
            return found.count < limit
        }
        // An ID the walk had not reached can precede one it found only as a prefix of it followed by a byte below "/".
        var all = Set(found)
        for id in found {
            let bytes = Array(id.utf8)
            for (offset, byte) in bytes.enumerated() where offset > 0 && byte < UInt8(ascii: "/") {
                let candidate = String(decoding: bytes[..<offset], as: UTF8.self)
                guard isAfter(candidate), !all.contains(candidate) else { continue }
                let nested = try scanner.firstCollectionPath(
                    from: prefix + candidate + "/", inclusive: true, below: prefix + candidate + "0")
                if nested != nil { all.insert(candidate) }
            }
        }
        return Array(all.sorted { Value.compareBytes($0.utf8, $1.utf8) < 0 }.prefix(limit))
    }
}
