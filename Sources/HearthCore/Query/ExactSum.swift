/// The exact sum of finite doubles and 64-bit integers, rounded once at the end: a fixed-point integer wide
/// enough for every finite double (2^-1074 ... 2^1024) plus 63 bits of headroom, in two's complement. So a
/// running total that would overflow (`MAX + MAX - MAX - MAX`) still gives the exact finite result, and the
/// result does not depend on the order of the inputs.
struct ExactSum: Sendable {
    /// 34 limbs of 64 bits, least significant first; bit 0 weighs 2^-1074.
    private var limbs = [UInt64](repeating: 0, count: 34)

    /// The bit that weighs 2^0.
    private static let unitBit = 1074

    /// Adds a finite double.
    mutating func add(_ value: Double) {
        guard value != 0, value.isFinite else { return }
        let normal = value.exponentBitPattern != 0
        let significand = value.significandBitPattern | (normal ? 1 << 52 : 0)
        add(magnitude: significand, shift: normal ? Int(value.exponentBitPattern) - 1 : 0, negative: value < 0)
    }

    /// Adds an integer.
    mutating func add(_ value: Int64) {
        guard value != 0 else { return }
        add(magnitude: value.magnitude, shift: Self.unitBit, negative: value < 0)
    }

    private mutating func add(magnitude: UInt64, shift: Int, negative: Bool) {
        let limb = shift / 64
        let bit = shift % 64
        let low = magnitude << UInt64(bit)
        let high = bit == 0 ? 0 : magnitude >> UInt64(64 - bit)
        var carry: UInt64 = 0
        for (offset, part) in [low, high].enumerated() where limb + offset < limbs.count {
            carry = apply(part, at: limb + offset, carry: carry, negative: negative)
        }
        var index = limb + 2
        while carry != 0, index < limbs.count {
            carry = apply(0, at: index, carry: carry, negative: negative)
            index += 1
        }
    }

    /// Adds (or subtracts) `part` and a carry (or borrow) at one limb; returns the next carry (or borrow).
    private mutating func apply(_ part: UInt64, at index: Int, carry: UInt64, negative: Bool) -> UInt64 {
        if negative {
            let (a, borrow1) = limbs[index].subtractingReportingOverflow(part)
            let (b, borrow2) = a.subtractingReportingOverflow(carry)
            limbs[index] = b
            return (borrow1 ? 1 : 0) + (borrow2 ? 1 : 0)
        }
        let (a, carry1) = limbs[index].addingReportingOverflow(part)
        let (b, carry2) = a.addingReportingOverflow(carry)
        limbs[index] = b
        return (carry1 ? 1 : 0) + (carry2 ? 1 : 0)
    }

    /// Whether the sum is exactly zero.
    var isZero: Bool { limbs.allSatisfy { $0 == 0 } }

    /// The sum rounded to the nearest double (ties to even); ±infinity when it lies beyond the doubles.
    var value: Double {
        var magnitude = limbs
        let negative = (limbs[limbs.count - 1] >> 63) == 1
        if negative {
            // Two's complement negation: invert, add one.
            var carry: UInt64 = 1
            for index in magnitude.indices {
                let (sum, overflow) = (~magnitude[index]).addingReportingOverflow(carry)
                magnitude[index] = sum
                carry = overflow ? 1 : 0
            }
        }
        guard let top = magnitude.lastIndex(where: { $0 != 0 }) else { return 0 }
        let highest = top * 64 + (63 - magnitude[top].leadingZeroBitCount)
        func bit(_ position: Int) -> UInt64 {
            position < 0 ? 0 : (magnitude[position / 64] >> UInt64(position % 64)) & 1
        }
        let lowest = max(highest - 52, 0)
        var significand: UInt64 = 0
        for position in stride(from: highest, through: lowest, by: -1) {
            significand = significand << 1 | bit(position)
        }
        if lowest > 0 {
            let round = bit(lowest - 1) == 1
            let sticky = (0..<(lowest - 1)).contains { bit($0) == 1 }
            if round && (sticky || significand & 1 == 1) { significand += 1 }
        }
        let result = Double(sign: .plus, exponent: lowest - Self.unitBit, significand: Double(significand))
        return negative ? -result : result
    }
}
