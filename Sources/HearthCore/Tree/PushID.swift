/// Generates push IDs: 20 characters from Firebase's 64-character alphabet (`-`, digits, `A–Z`, `_`, `a–z`, in
/// ASCII order), the first 8 encoding the time in milliseconds and the last 12 random, so IDs sort by creation time.
///
/// Within one generator IDs strictly increase, even within one millisecond or if the clock steps back: the random
/// part of the previous ID is incremented instead of drawn anew. Not thread-safe on its own; keep one behind a lock.
public struct PushIDGenerator: Sendable {
    /// The alphabet, in ASCII (and so in sort) order.
    public static let alphabet: [UInt8] = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private var lastMillis: Int64 = -1
    private var lastRandom: [UInt8] = []

    /// A generator that has issued no ID yet.
    public init() {}

    /// The next ID.
    /// - Parameters:
    ///   - nowMillis: the current time in milliseconds since the epoch.
    ///   - random: returns a random index in `0..<64` for each of the 12 random characters.
    public mutating func next(nowMillis: Int64, random: () -> UInt8) -> String {
        var millis = nowMillis
        if millis <= lastMillis {
            millis = lastMillis
            if !increment(&lastRandom) {
                // All 12 random characters were at their maximum: move to the next millisecond instead.
                millis += 1
                lastRandom = (0..<12).map { _ in random() & 63 }
            }
        } else {
            lastRandom = (0..<12).map { _ in random() & 63 }
        }
        lastMillis = millis
        var bytes = [UInt8](repeating: 0, count: 20)
        var time = millis
        for index in stride(from: 7, through: 0, by: -1) {
            bytes[index] = Self.alphabet[Int(time & 63)]
            time >>= 6
        }
        for index in 0..<12 { bytes[8 + index] = Self.alphabet[Int(lastRandom[index])] }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Adds one to a base-64 number of digits 0…63; `false` when it overflowed.
    private func increment(_ digits: inout [UInt8]) -> Bool {
        guard digits.count == 12 else { return false }
        for index in stride(from: 11, through: 0, by: -1) {
            if digits[index] < 63 {
                digits[index] += 1
                return true
            }
            digits[index] = 0
        }
        return false
    }
}
