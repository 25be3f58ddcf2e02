/// How a list changed between two snapshots, as index sets a list view animates with: remove the ``deletions``
/// and reload the ``modifications`` (both indices into the old list), then insert the ``insertions`` (indices into
/// the new list) — the order `UITableView.performBatchUpdates` and `UICollectionView` apply them in. A document that
/// moved is a deletion at its old index plus an insertion at its new one.
public struct ListChanges: Sendable, Hashable {
    /// Indices, in the new list, of documents that entered it or moved, ascending.
    public var insertions: [Int]
    /// Indices, in the old list, of documents that stayed in place (relative to the others) but changed, ascending.
    public var modifications: [Int]
    /// Indices, in the old list, of documents that left it or moved, ascending.
    public var deletions: [Int]

    /// No change.
    public static let none = ListChanges(insertions: [], modifications: [], deletions: [])

    /// Creates a change set.
    public init(insertions: [Int], modifications: [Int], deletions: [Int]) {
        self.insertions = insertions
        self.modifications = modifications
        self.deletions = deletions
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { insertions.isEmpty && modifications.isEmpty && deletions.isEmpty }

    /// The changes from `before` to `after`, whose elements are told apart by `key` and compared by `version`.
    ///
    /// The documents that stay are the longest run of common keys already in the new order (a longest increasing
    /// subsequence of their old positions), so a single move costs one deletion and one insertion, not a shift of
    /// everything between. O(n log n).
    public static func between<Element, Key: Hashable, Version: Equatable>(
        _ before: [Element], _ after: [Element], key: (Element) -> Key, version: (Element) -> Version
    ) -> ListChanges {
        var oldIndex: [Key: Int] = [:]
        for (index, element) in before.enumerated() { oldIndex[key(element)] = index }
        // Old positions of the common elements, in new order; the kept ones are a longest increasing run of them.
        var common: [(new: Int, old: Int)] = []
        for (index, element) in after.enumerated() {
            if let old = oldIndex[key(element)] { common.append((index, old)) }
        }
        let kept = longestIncreasing(common.map(\.old))
        var keptOld = Set<Int>()
        var keptNew = Set<Int>()
        var modifications: [Int] = []
        for position in kept {
            let (new, old) = common[position]
            keptOld.insert(old)
            keptNew.insert(new)
            if version(before[old]) != version(after[new]) { modifications.append(old) }
        }
        return ListChanges(
            insertions: after.indices.filter { !keptNew.contains($0) },
            modifications: modifications.sorted(),
            deletions: before.indices.filter { !keptOld.contains($0) })
    }

    /// Positions in `values` of one longest strictly increasing subsequence (patience sorting with back links).
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // tails[k]: position of the smallest tail of an increasing run of length k + 1
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            result.append(position)
            position = previous[position]
        }
        return result.reversed()
    }

    /// Applies the changes to `before`, taking inserted and reloaded elements from `after` — what a list view does
    /// with them. `modifications` are reloaded in place by key, so `after` must hold the same keys.
    public func applied<Element, Key: Hashable>(
        to before: [Element], from after: [Element], key: (Element) -> Key
    ) -> [Element] {
        var newByKey: [Key: Element] = [:]
        for element in after { newByKey[key(element)] = element }
        var list = before
        for index in modifications { list[index] = newByKey[key(before[index])] ?? before[index] }
        for index in deletions.reversed() { list.remove(at: index) }
        for index in insertions { list.insert(after[index], at: index) }
        return list
    }
}
