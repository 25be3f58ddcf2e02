extension JSONScanner {
    /// Reads the number starting at `index` (a `-` or a digit).
    ///
    /// Validates the RFC 8259 grammar while gathering up to 19 significant digits. Whole numbers that fit become
    /// ``JSONValue/integer(_:)`` exactly. Other numbers take Clinger's fast path when it is exact (at most 2^53 as
    /// the digit string and a power of ten up to 10^22, both exact doubles, so one correctly rounded multiply or
    /// divide gives the correctly rounded result); the rest go to the standard library's correctly rounded
    /// conversion.
    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        let end = bytes.count
        var i = index
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }

        var mantissa: UInt64 = 0
        var significantDigits = 0
        // More than 19 significant digits: the mantissa no longer holds the number, only the slow path is exact.
        var truncated = false
        var decimalExponent = 0

        guard i < end, Self.isDigit(bytes[i]) else { throw expectedDigit(at: i, after: "'-'") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < end, Self.isDigit(bytes[i]) { throw failure("Leading zeros are not allowed", at: i - 1) }
        } else {
            repeat {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- UInt8(ascii: "0"))
                    significantDigits += 1
                } else {
                    truncated = true
                }
                i += 1
            } while i < end && Self.isDigit(bytes[i])
        }

        var isInteger = true
        if i < end, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < end, Self.isDigit(bytes[i]) else { throw expectedDigit(at: i, after: "'.'") }
            repeat {
                let digit = UInt64(bytes[i] &- UInt8(ascii: "0"))
                if mantissa == 0 && digit == 0 {
                    decimalExponent -= 1  // a leading zero only moves the decimal point
                } else if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ digit
                    significantDigits += 1
                    decimalExponent -= 1
                } else {
                    truncated = true
                }
                i += 1
            } while i < end && Self.isDigit(bytes[i])
        }

        if i < end, bytes[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            var exponentIsNegative = false
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentIsNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < end, Self.isDigit(bytes[i]) else { throw expectedDigit(at: i, after: "the exponent marker") }
            var exponent = 0
            repeat {
                // Saturate: anything this large already over- or underflows, and the slow path gets the exact text.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                i += 1
            } while i < end && Self.isDigit(bytes[i])
            decimalExponent += exponentIsNegative ? -exponent : exponent
        }
        index = i

        // "-0" keeps its sign as a double: no Int64 can, and proto3 JSON readers treat -0 as negative zero.
        if isInteger && !truncated && !(negative && mantissa == 0) {
            if negative, mantissa <= UInt64(Int64.max) + 1 {
                return .integer(Int64(bitPattern: 0 &- mantissa))
            }
            if !negative, mantissa <= UInt64(Int64.max) {
                return .integer(Int64(mantissa))
            }
        }
        if !truncated, mantissa <= 1 << 53, (-22...22).contains(decimalExponent) {
            let scale = JSONPowersOfTen.exact[abs(decimalExponent)]
            let magnitude = decimalExponent < 0 ? Double(mantissa) / scale : Double(mantissa) * scale
            return .double(negative ? -magnitude : magnitude)
        }
        return try parseDoubleSlowly(from: start, to: i)
    }

    func parseDoubleSlowly(from start: Int, to end: Int) throws(JSONError) -> JSONValue {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        // An overflow to infinity is rejected rather than kept: JSON cannot write it back, so accepting it would turn
        // a number into `null` on the next write.
        guard let value = Double(text), value.isFinite else {
            throw failure("Number out of range", at: start)
        }
        return .double(value)
    }

    func expectedDigit(at offset: Int, after what: String) -> JSONError {
        guard offset < bytes.count else { return unexpected(at: offset) }
        return failure("Expected a digit after \(what)", at: offset)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}

/// Powers of ten that a `Double` holds exactly (up to 10^22, since 5^22 < 2^53).
enum JSONPowersOfTen {
    static let exact: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
