import HearthCore
import HearthStore

/// What one change did to a target's visible results.
struct ViewDelta: Sendable, Equatable {
    /// Documents that entered the results or changed in them.
    var changed: [StoredDocument] = []
    /// Documents that left the results although they still exist.
    var removed: [ResourcePath] = []
    /// Documents that left the results because they were deleted.
    var deleted: [ResourcePath] = []

    var isEmpty: Bool { changed.isEmpty && removed.isEmpty && deleted.isEmpty }

    /// The difference between visible results before and after: a leaver is reported as deleted when
    /// `isDeleted` says so, as removed otherwise.
    static func between(
        _ before: [VisibleEntry], _ after: some Sequence<MatchedDocument>, isDeleted: (ResourcePath) -> Bool
    ) -> ViewDelta {
        var delta = ViewDelta()
        var old = Dictionary(before.map { ($0.path, $0.updateTime) }, uniquingKeysWith: { first, _ in first })
        for document in after {
            if let time = old.removeValue(forKey: document.path), time == document.document.updateTime { continue }
            delta.changed.append(document.document)
        }
        // Leavers in their old order, so output is deterministic.
        for entry in before where old[entry.path] != nil {
            if isDeleted(entry.path) { delta.deleted.append(entry.path) } else { delta.removed.append(entry.path) }
        }
        return delta
    }
}
