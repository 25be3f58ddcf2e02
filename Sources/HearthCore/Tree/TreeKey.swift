/// The rules for one key (path segment) of the tree, and Firebase's order of keys.
public enum TreeKey {
    /// Why `key` cannot name a child, or `nil` when it can: it must be non-empty, at most 768 UTF-8 bytes, and free
    /// of `.`, `$`, `#`, `[`, `]`, `/` and the ASCII control characters (U+0000–U+001F, U+007F).
    public static func problem(with key: String) -> String? {
        if key.isEmpty { return "a key is empty" }
        var count = 0
        for byte in key.utf8 {
            count += 1
            switch byte {
            case 0x00...0x1F, 0x7F:
                return "key \(quoted(key)) contains an ASCII control character"
            case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"),
                UInt8(ascii: "/"):
                return "key \(quoted(key)) contains one of . $ # [ ] /"
            default:
                continue
            }
        }
        if count > TreeLimits.maxKeyBytes {
            return "a key is longer than \(TreeLimits.maxKeyBytes) bytes"
        }
        return nil
    }

    /// Whether `key` is a valid key.
    public static func isValid(_ key: String) -> Bool { problem(with: key) == nil }

    /// The key as a 32-bit integer when Firebase treats it as one for ordering: an optional `-`, at most ten digits
    /// (leading zeros allowed) and a value within `Int32`. Such keys sort before all others, numerically.
    public static func integerValue(_ key: String) -> Int32? {
        var utf8 = key.utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        var significant = utf8.drop { $0 == UInt8(ascii: "0") }
        if significant.isEmpty && !utf8.isEmpty { significant = utf8.suffix(1) }
        guard !utf8.isEmpty, significant.count <= 10, utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        var value: Int64 = 0
        for digit in significant { value = value * 10 + Int64(digit - 0x30) }
        if negative { value = -value }
        return Int32(exactly: value)
    }

    /// Firebase's key order: keys that are 32-bit integers first, numerically (equal numbers: the shorter text
    /// first, so `"1"` before `"01"`), then every other key by UTF-16 code units, as JavaScript compares strings.
    /// - Returns: a negative number, zero or a positive number.
    public static func compare(_ lhs: String, _ rhs: String) -> Int {
        if lhs == rhs { return 0 }
        switch (integerValue(lhs), integerValue(rhs)) {
        case (let a?, let b?):
            if a != b { return a < b ? -1 : 1 }
            let (l, r) = (lhs.utf8.count, rhs.utf8.count)
            return l == r ? compareUTF16(lhs, rhs) : (l < r ? -1 : 1)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareUTF16(lhs, rhs)
        }
    }

    /// Compares two strings by UTF-16 code units, the order of JavaScript's `<` that Firebase clients use.
    public static func compareUTF16(_ lhs: String, _ rhs: String) -> Int {
        var left = lhs.utf16.makeIterator()
        var right = rhs.utf16.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?) where a != b: return a < b ? -1 : 1
            default: continue
            }
        }
    }

    /// A key shortened for an error message, so a hostile 768-byte key does not flood a log line.
    static func quoted(_ key: String) -> String {
        let shown = key.unicodeScalars.prefix(40).map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return "\"" + shown + (key.unicodeScalars.count > 40 ? "…" : "") + "\""
    }
}
