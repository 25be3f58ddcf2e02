extension Value {
    /// Compares two values in Firestore's documented order: first by type (null, booleans, numbers,
    /// timestamps, strings, bytes, references, geo points, arrays, maps), then within the type. Numbers compare
    /// by mathematical value across integers and doubles, NaN sorts before every other number and equals
    /// itself; strings compare by UTF-8 bytes; references by path segment.
    /// - Returns: a negative number, zero or a positive number.
    public static func compare(_ lhs: Value, _ rhs: Value) -> Int {
        let lhsType = lhs.typeOrder
        let rhsType = rhs.typeOrder
        if lhsType != rhsType { return lhsType < rhsType ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.boolean(let a), .boolean(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.timestamp(let a), .timestamp(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.string(let a), .string(let b)): return compareBytes(a.utf8, b.utf8)
        case (.bytes(let a), .bytes(let b)): return compareBytes(a, b)
        case (.reference(let a), .reference(let b)):
            return compareSegments(
                a.split(separator: "/", omittingEmptySubsequences: false),
                b.split(separator: "/", omittingEmptySubsequences: false))
        case (.geoPoint(let aLat, let aLng), .geoPoint(let bLat, let bLng)):
            let byLatitude = compareDoubles(aLat, bLat)
            return byLatitude != 0 ? byLatitude : compareDoubles(aLng, bLng)
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let result = compare(x, y)
                if result != 0 { return result }
            }
            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        case (.map(let a), .map(let b)):
            let aKeys = a.keys.sorted { compareBytes($0.utf8, $1.utf8) < 0 }
            let bKeys = b.keys.sorted { compareBytes($0.utf8, $1.utf8) < 0 }
            for (aKey, bKey) in zip(aKeys, bKeys) {
                let byKey = compareBytes(aKey.utf8, bKey.utf8)
                if byKey != 0 { return byKey }
                let byValue = compare(a[aKey]!, b[bKey]!)
                if byValue != 0 { return byValue }
            }
            return aKeys.count == bKeys.count ? 0 : (aKeys.count < bKeys.count ? -1 : 1)
        default:
            return compareNumbers(lhs, rhs)
        }
    }

    /// Whether two values are equivalent in Firestore's sense (`3 == 3.0`, `NaN == NaN`).
    public func isEquivalent(to other: Value) -> Bool { Value.compare(self, other) == 0 }

    private static func compareNumbers(_ lhs: Value, _ rhs: Value) -> Int {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.double(let a), .double(let b)): return compareDoubles(a, b)
        case (.integer(let a), .double(let b)): return -compareDoubleToInteger(b, a)
        case (.double(let a), .integer(let b)): return compareDoubleToInteger(a, b)
        default: return 0
        }
    }

    /// Doubles in Firestore order: NaN first and equal to itself, -0.0 equal to 0.0.
    static func compareDoubles(_ a: Double, _ b: Double) -> Int {
        if a.isNaN { return b.isNaN ? 0 : -1 }
        if b.isNaN { return 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// Exact comparison of a double with an integer, without the rounding of `Double(Int64)`.
    static func compareDoubleToInteger(_ d: Double, _ i: Int64) -> Int {
        if d.isNaN { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return -1 }
        if d >= 9_223_372_036_854_775_808.0 { return 1 }
        let truncated = Int64(d.rounded(.towardZero))
        if truncated != i { return truncated < i ? -1 : 1 }
        let fraction = d - d.rounded(.towardZero)
        return fraction == 0 ? 0 : (fraction < 0 ? -1 : 1)
    }

    /// Compares byte sequences lexicographically (`memcmp` order, the shorter prefix first): the order of UTF-8
    /// strings, index keys and SQLite's BINARY collation.
    public static func compareBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Int {
        var aIterator = a.makeIterator()
        var bIterator = b.makeIterator()
        while true {
            switch (aIterator.next(), bIterator.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    private static func compareSegments(_ a: [Substring], _ b: [Substring]) -> Int {
        for (x, y) in zip(a, b) {
            let result = compareBytes(x.utf8, y.utf8)
            if result != 0 { return result }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
