package import HearthCore

/// A sorted union of disjoint key ranges: what one field's constraints allow.
package struct RangeSet: Sendable, Equatable {
    package private(set) var ranges: [KeyRange]

    package init(_ ranges: [KeyRange]) {
        self.ranges = RangeSet.normalize(ranges)
    }

    static func everything(_ component: ComponentRanges) -> RangeSet { RangeSet([component.everything]) }

    package var isEmpty: Bool { ranges.isEmpty }

    package func intersection(_ other: RangeSet) -> RangeSet {
        var result: [KeyRange] = []
        for a in ranges {
            for b in other.ranges {
                let overlap = a.intersection(b)
                if !overlap.isEmpty { result.append(overlap) }
            }
        }
        return RangeSet(result)
    }

    /// These ranges minus one range.
    func subtracting(_ hole: KeyRange) -> RangeSet {
        var result: [KeyRange] = []
        for range in ranges {
            let below = range.intersection(KeyRange(lower: nil, upper: hole.lower))
            let above = range.intersection(KeyRange(lower: hole.upper, upper: nil))
            if hole.lower != nil, !below.isEmpty { result.append(below) }
            if hole.upper != nil, !above.isEmpty { result.append(above) }
        }
        return RangeSet(result)
    }

    private static func normalize(_ ranges: [KeyRange]) -> [KeyRange] {
        let sorted = ranges.filter { !$0.isEmpty }.sorted { a, b in
            switch (a.lower, b.lower) {
            case (nil, _): return b.lower != nil
            case (_, nil): return false
            case (let x?, let y?): return Value.compareBytes(x, y) < 0
            }
        }
        var merged: [KeyRange] = []
        for range in sorted {
            guard let last = merged.last else {
                merged.append(range)
                continue
            }
            guard let lastUpper = last.upper else { continue }  // the previous range runs to the end
            let overlaps = range.lower.map { Value.compareBytes($0, lastUpper) <= 0 } ?? true
            if overlaps {
                merged[merged.count - 1].upper = range.upper.map {
                    Value.compareBytes($0, lastUpper) > 0 ? $0 : lastUpper
                }
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// The ranges one constraint allows on a component.
    static func allowed(by term: QueryFilter, component: ComponentRanges) -> RangeSet? {
        switch term {
        case .field(_, let op, let value):
            switch op {
            case .equal: return RangeSet([component.equal(value)])
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
                return RangeSet([component.compare(op, value)])
            case .in:
                return RangeSet(value.matchableElements.map(component.equal))
            case .notEqual:
                return everything(component).subtracting(component.equal(value))
            case .notIn:
                return (value.arrayElements ?? []).reduce(everything(component)) { $0.subtracting(component.equal($1)) }
            case .arrayContains, .arrayContainsAny:
                return nil
            }
        case .unary(_, let op):
            switch op {
            case .isNull: return RangeSet([component.equal(.null)])
            case .isNaN: return RangeSet([component.equal(.double(.nan))])
            case .isNotNull: return everything(component).subtracting(component.equal(.null))
            case .isNotNaN: return everything(component).subtracting(component.equal(.double(.nan)))
            }
        case .and, .or:
            return nil
        }
    }

    /// The element ranges an array-contains constraint allows.
    static func allowedElements(by term: QueryFilter, component: ComponentRanges) -> RangeSet? {
        guard case .field(_, let op, let value) = term else { return nil }
        switch op {
        case .arrayContains: return RangeSet(value.isNullOrNaN ? [] : [component.equal(value)])
        case .arrayContainsAny: return RangeSet(value.matchableElements.map(component.equal))
        default: return nil
        }
    }
}

extension Value {
    /// The elements of an `IN` or `ARRAY_CONTAINS_ANY` operand that can match: null and NaN never do.
    package var matchableElements: [Value] { (arrayElements ?? []).filter { !$0.isNullOrNaN } }
}
