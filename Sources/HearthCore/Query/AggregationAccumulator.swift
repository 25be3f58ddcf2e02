/// Folds the documents a query matches into aggregation results with Firestore's semantics.
///
/// `count` counts documents (capped at `upTo`). `sum` and `avg` take only numeric values (integers and
/// doubles; null, strings and missing fields are skipped). A sum is an integer while every input is an integer
/// and the total fits 64 bits, otherwise a double: the exact sum of the finite inputs rounded once (as
/// production: MAX, MAX, -MAX, -MAX sums to 0, not infinity); NaN and infinities follow IEEE 754; the sum of
/// nothing is the integer 0. An average is always a double, or null when there was no numeric input. Integer inputs are summed
/// exactly (in 128 bits), so the result does not depend on the order documents arrive in.
public struct AggregationAccumulator: Sendable {
    private struct Numeric: Sendable {
        var integerSum: Int128 = 0
        /// Every finite input, exactly, so a running total that overflows still ends finite when the sum is.
        var exact = ExactSum()
        /// IEEE sum of the non-finite inputs (NaN, ±infinity), which decide the result when present.
        var special: Double = 0
        var sawSpecial = false
        /// Whether every double so far was -0.0, whose IEEE sum stays -0.0.
        var onlyNegativeZeros = true
        var count: Int64 = 0
        var sawInteger = false
        var sawDouble = false

        mutating func add(_ value: Value?) {
            switch value {
            case .integer(let integer)?:
                integerSum += Int128(integer)
                exact.add(integer)
                sawInteger = true
                count += 1
            case .double(let double)?:
                if double.isFinite {
                    exact.add(double)
                } else {
                    special += double
                    sawSpecial = true
                }
                if !(double == 0 && double.sign == .minus) { onlyNegativeZeros = false }
                sawDouble = true
                count += 1
            default:
                break
            }
        }

        var total: Double {
            if sawSpecial { return special }
            if exact.isZero { return !sawInteger && onlyNegativeZeros ? -0.0 : 0 }
            return exact.value
        }
    }

    private let aggregations: [AggregationQuery.Aggregation]
    private var documents: Int64 = 0
    private var numerics: [Numeric]

    /// Starts accumulating for these aggregations.
    public init(_ aggregations: [AggregationQuery.Aggregation]) {
        self.aggregations = aggregations
        self.numerics = Array(repeating: Numeric(), count: aggregations.count)
    }

    /// Adds one matching document.
    public mutating func add(fields: [String: Value]) {
        documents += 1
        for (index, aggregation) in aggregations.enumerated() {
            switch aggregation.kind {
            case .count: break
            case .sum(let path), .average(let path): numerics[index].add(fields.value(at: path))
            }
        }
    }

    /// Whether more documents can no longer change the results: every aggregation is a `count` that has reached
    /// its `upTo`. An executor may stop reading then.
    public var isSaturated: Bool {
        aggregations.allSatisfy { aggregation in
            if case .count(let upTo?) = aggregation.kind { return documents >= upTo }
            return false
        }
    }

    /// The results by alias: count → integer; sum → integer while all numeric inputs are integers and the total
    /// fits 64 bits, else double; avg → double, or null without numeric input.
    public var results: [String: Value] {
        var results: [String: Value] = [:]
        for (index, aggregation) in aggregations.enumerated() {
            let numeric = numerics[index]
            switch aggregation.kind {
            case .count(let upTo):
                results[aggregation.alias] = .integer(min(documents, upTo ?? .max))
            case .sum:
                if !numeric.sawDouble, let exact = Int64(exactly: numeric.integerSum) {
                    results[aggregation.alias] = .integer(exact)
                } else {
                    results[aggregation.alias] = .double(numeric.total)
                }
            case .average:
                results[aggregation.alias] = numeric.count == 0 ? .null : .double(numeric.total / Double(numeric.count))
            }
        }
        return results
    }
}
