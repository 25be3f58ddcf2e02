import HearthCore

/// The longest index key an engine stores whole. PostgreSQL's B-trees refuse entries past a third of a page, so its
/// engine keeps the first ``length`` bytes of a longer key (Firestore itself indexes only the first 1,500 bytes of
/// a value); SQLite's stores every key whole and has no cap.
///
/// A cut key is a prefix of the real one, and cutting keeps order (`a <= b` implies `cut(a) <= cut(b)`), so the
/// engine-neutral scans stay correct by asking for a superset and letting the documents decide:
/// - a range is widened to the stored keys of every key in it (``widened(_:)``); the matcher, which checks every
///   candidate document against the whole query, drops the extra ones;
/// - rows whose stored key is at the cap (``isCut(_:)``) may stand for different longer values, so their order
///   among themselves is the documents' to tell: the executor reads such a run whole and sorts it in query order;
/// - a count answered from the index alone is exact only when no row in its ranges is cut (shorter rows in a
///   widened range are exactly the keys of the original range), else the documents are counted.
package struct IndexKeyCap: Sendable, Equatable {
    /// The most bytes of a key stored.
    package var length: Int

    package init(length: Int) {
        self.length = length
    }

    /// The key as stored: its first ``length`` bytes.
    package func stored(_ key: [UInt8]) -> [UInt8] {
        key.count > length ? Array(key.prefix(length)) : key
    }

    /// Whether a stored key may have been cut from a longer one (it is as long as the cap): rows with it are in no
    /// known order among themselves, and match or not by their documents alone.
    package func isCut(_ storedKey: [UInt8]) -> Bool {
        storedKey.count >= length
    }

    /// The smallest range of stored keys holding the stored key of every key in `range`.
    package func widened(_ range: KeyRange) -> KeyRange {
        // A lower bound within the cap is its own stored key; a longer one's cut is below every key past it.
        let lower = range.lower.map(stored)
        // A key below an upper bound within the cap is stored below it too; past the cap, every key below the
        // bound is stored at or below its cut, so the bound becomes whatever follows that cut and its extensions.
        var upper = range.upper
        if let bound = upper, bound.count > length { upper = KeyRange.successor(ofPrefix: stored(bound)) }
        return KeyRange(lower: lower, upper: upper)
    }

    /// Sorted disjoint ranges widened, those that now overlap merged, so no stored key lies in two of them.
    package func widened(_ ranges: [KeyRange]) -> [KeyRange] {
        RangeSet(ranges.map(widened)).ranges
    }

    /// Where a scan from `start` begins among stored keys: at a key past the cap, at its cut and with no tie (rows
    /// there with any tie-breaker may hold values past the cursor); the matcher settles the edge.
    package func start(_ start: IndexScanStart?) -> IndexScanStart? {
        guard let start, start.key.count >= length else { return start }
        return IndexScanStart(key: stored(start.key), tie: nil)
    }
}
