import HearthCore

/// A field value as a hash key under Firestore equality: values that compare equal (`1` and `1.0`, `-0.0` and
/// `0.0`) get the same key. Only values an equality filter can be indexed on have one; NaN, arrays and maps do not
/// (queries on them are matched without the index).
enum IndexValue: Hashable, Sendable {
    case null
    case boolean(Bool)
    /// Integers, and doubles with an integral value in `Int64`'s range.
    case integer(Int64)
    /// Other doubles, by bit pattern.
    case double(UInt64)
    case timestamp(Timestamp)
    /// Equal strings are equal here (String equality is coarser than Firestore's UTF-8 order, which only adds
    /// candidates; the matcher has the last word).
    case string(String)
    case bytes([UInt8])
    case reference(String)
    case geoPoint(UInt64, UInt64)

    init?(_ value: Value) {
        switch value {
        case .null: self = .null
        case .boolean(let flag): self = .boolean(flag)
        case .integer(let number): self = .integer(number)
        case .double(let number):
            if number.isNaN { return nil }
            if number == number.rounded(.towardZero), number >= -9_223_372_036_854_775_808.0,
                number < 9_223_372_036_854_775_808.0
            {
                self = .integer(Int64(number))
            } else {
                self = .double(number.bitPattern)
            }
        case .timestamp(let time): self = .timestamp(time)
        case .string(let text): self = .string(text)
        case .bytes(let bytes): self = .bytes(bytes)
        case .reference(let name): self = .reference(name)
        case .geoPoint(let latitude, let longitude):
            if latitude.isNaN || longitude.isNaN { return nil }
            // + 0.0 turns -0.0 into 0.0, which Firestore orders as equal.
            self = .geoPoint((latitude + 0.0).bitPattern, (longitude + 0.0).bitPattern)
        case .array, .map: return nil
        }
    }
}
