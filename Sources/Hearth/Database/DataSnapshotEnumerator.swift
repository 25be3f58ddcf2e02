import Foundation

/// ``DataSnapshot/children``: the children one at a time, as Firebase's `NSEnumerator` hands them out.
final class DataSnapshotEnumerator: NSEnumerator {
    private let snapshots: [DataSnapshot]
    private var next = 0

    init(_ snapshots: [DataSnapshot]) { self.snapshots = snapshots }

    /// The next child, `nil` after the last.
    override func nextObject() -> Any? {
        guard next < snapshots.count else { return nil }
        defer { next += 1 }
        return snapshots[next]
    }
}
