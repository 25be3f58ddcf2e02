import HearthCore

/// A half-open range `[lower, upper)` of index key bytes; `nil` bounds are open.
package struct KeyRange: Sendable, Equatable, CustomStringConvertible {
    package var lower: [UInt8]?
    package var upper: [UInt8]?

    package init(lower: [UInt8]?, upper: [UInt8]?) {
        self.lower = lower
        self.upper = upper
    }

    package static let all = KeyRange(lower: nil, upper: nil)

    package var isEmpty: Bool {
        guard let lower, let upper else { return false }
        return Value.compareBytes(lower, upper) >= 0
    }

    package func intersection(_ other: KeyRange) -> KeyRange {
        let newLower: [UInt8]? =
            switch (lower, other.lower) {
            case (nil, let b): b
            case (let a, nil): a
            case (let a?, let b?): Value.compareBytes(a, b) >= 0 ? a : b
            }
        let newUpper: [UInt8]? =
            switch (upper, other.upper) {
            case (nil, let b): b
            case (let a, nil): a
            case (let a?, let b?): Value.compareBytes(a, b) <= 0 ? a : b
            }
        return KeyRange(lower: newLower, upper: newUpper)
    }

    package var description: String {
        func hex(_ bytes: [UInt8]?) -> String { bytes.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "∞" }
        return "[\(hex(lower)), \(hex(upper)))"
    }

    /// The smallest byte string greater than every string that starts with `prefix`; `nil` when none exists.
    package static func successor(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}

/// Turns one field constraint into key ranges over an index whose keys are `prefix + component + …`, where the
/// component is the field's ``IndexKey`` encoding (inverted when the field is indexed descending). Encodings
/// are prefix-free, so "component == v" is exactly "key starts with prefix + enc(v)".
package struct ComponentRanges {
    var prefix: [UInt8]
    var descending: Bool

    func component(_ value: Value) -> [UInt8] {
        let bytes = IndexKey.encode(value)
        return descending ? bytes.map { ~$0 } : bytes
    }

    /// Keys whose component equals `value`.
    func equal(_ value: Value) -> KeyRange {
        let start = prefix + component(value)
        return KeyRange(lower: start, upper: KeyRange.successor(ofPrefix: start))
    }

    /// Keys whose component has the value's type (Firestore compares only within a type).
    func sameType(as value: Value) -> KeyRange {
        let (low, high) = IndexKey.typeRange(value.typeOrder)
        if descending {
            // Inverted first bytes of the type lie in (~high, ~low].
            return KeyRange(lower: prefix + [~high[0] &+ 1], upper: prefix + [~low[0] &+ 1])
        }
        return KeyRange(
            lower: prefix + low, upper: high[0] == 0xFF ? KeyRange.successor(ofPrefix: prefix) : prefix + high)
    }

    /// Keys whose component compares to `value` as `op` does (within the value's type). Null and NaN take no
    /// part in `<`, `<=`, `>`, `>=`: a null or NaN operand allows nothing, and a number range leaves NaN out.
    func compare(_ op: FieldOperator, _ value: Value) -> KeyRange {
        if value.isNullOrNaN { return KeyRange(lower: prefix, upper: prefix) }
        var type = sameType(as: value)
        if value.isNumber {
            // NaN's key is the number tag then 0x00, every other number's the tag then 0x01.
            let nan = component(.double(.nan))
            if descending { type.upper = prefix + nan } else { type.lower = KeyRange.successor(ofPrefix: prefix + nan) }
        }
        let start = prefix + component(value)
        let pastEqual = KeyRange.successor(ofPrefix: start)
        // In ascending order "less" is lower bytes; descending flips it.
        let less = KeyRange(lower: type.lower, upper: start)
        let lessOrEqual = KeyRange(lower: type.lower, upper: pastEqual)
        let greater = KeyRange(lower: pastEqual, upper: type.upper)
        let greaterOrEqual = KeyRange(lower: start, upper: type.upper)
        switch (op, descending) {
        case (.lessThan, false), (.greaterThan, true): return less
        case (.lessThanOrEqual, false), (.greaterThanOrEqual, true): return lessOrEqual
        case (.greaterThan, false), (.lessThan, true): return greater
        case (.greaterThanOrEqual, false), (.lessThanOrEqual, true): return greaterOrEqual
        default: return equal(value)
        }
    }

    /// Every key under the prefix.
    var everything: KeyRange {
        prefix.isEmpty ? .all : KeyRange(lower: prefix, upper: KeyRange.successor(ofPrefix: prefix))
    }
}
