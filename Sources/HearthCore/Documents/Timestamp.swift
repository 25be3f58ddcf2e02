/// A point in time with nanosecond resolution, as Firestore's `google.protobuf.Timestamp`.
///
/// Valid timestamps lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z. Stored values are
/// truncated to microseconds, as Firestore does.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since the Unix epoch.
    public var seconds: Int64
    /// Nanoseconds within the second, 0...999_999_999.
    public var nanos: Int32

    /// Creates a timestamp from its parts; `nanos` must be in 0...999_999_999.
    public init(seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// Creates a timestamp from microseconds since the epoch.
    public init(microseconds: Int64) {
        var seconds = microseconds / 1_000_000
        var micros = microseconds % 1_000_000
        if micros < 0 {
            seconds -= 1
            micros += 1_000_000
        }
        self.init(seconds: seconds, nanos: Int32(micros * 1000))
    }

    /// Microseconds since the epoch (sub-microsecond digits dropped).
    public var microseconds: Int64 { seconds * 1_000_000 + Int64(nanos / 1000) }

    /// The same instant with sub-microsecond digits dropped.
    public var truncatedToMicroseconds: Timestamp { Timestamp(seconds: seconds, nanos: nanos - nanos % 1000) }

    /// The same instant with sub-millisecond digits dropped: the precision of `REQUEST_TIME`.
    public var truncatedToMilliseconds: Timestamp { Timestamp(seconds: seconds, nanos: nanos - nanos % 1_000_000) }

    /// The smallest valid timestamp, 0001-01-01T00:00:00Z.
    public static let min = Timestamp(seconds: -62_135_596_800, nanos: 0)
    /// The largest valid timestamp, 9999-12-31T23:59:59.999999999Z.
    public static let max = Timestamp(seconds: 253_402_300_799, nanos: 999_999_999)

    /// Whether the timestamp lies in Firestore's valid range.
    public var isValid: Bool { self >= .min && self <= .max && nanos >= 0 && nanos < 1_000_000_000 }

    /// Earlier first: seconds, then nanoseconds.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }

    /// The RFC 3339 form.
    public var description: String { rfc3339 }

    /// RFC 3339 text in UTC with exactly six fractional digits: `2024-05-01T12:00:00.123456Z`.
    public var rfc3339: String {
        var bytes: [UInt8] = []
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``rfc3339`` as UTF-8 bytes, without building a string (responses carry several per document).
    public func appendRFC3339(to bytes: inout [UInt8]) {
        let (year, month, day, secondsOfDay) = Self.civil(fromSeconds: seconds)
        // `YYYY-MM-DDThh:mm:ss.ffffffZ` is 27 bytes: filled on the stack and appended once, rather than a byte at a
        // time through the array's capacity checks.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 27) { text in
            func digits(_ value: Int64, _ width: Int, at offset: Int) {
                var rest = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            digits(year, 4, at: 0)
            text[4] = UInt8(ascii: "-")
            digits(month, 2, at: 5)
            text[7] = UInt8(ascii: "-")
            digits(day, 2, at: 8)
            text[10] = UInt8(ascii: "T")
            digits(secondsOfDay / 3600, 2, at: 11)
            text[13] = UInt8(ascii: ":")
            digits(secondsOfDay / 60 % 60, 2, at: 14)
            text[16] = UInt8(ascii: ":")
            digits(secondsOfDay % 60, 2, at: 17)
            text[19] = UInt8(ascii: ".")
            digits(Int64(nanos / 1000), 6, at: 20)
            text[26] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Parses RFC 3339 text (`2024-05-01T12:00:00Z`, up to nine fractional digits, `Z` or a `±hh:mm` offset).
    public init?(rfc3339 text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 60
        else { return nil }
        var nanos: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                guard digits < 9 else { return nil }
                nanos = nanos * 10 + Int64(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanos *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if expect("Zz") {
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            index += 1
            guard let offsetHours = number(2), expect(":"), let offsetMinutes = number(2), offsetHours < 24,
                offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = Self.days(fromCivilYear: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let timestamp = Timestamp(seconds: seconds, nanos: Int32(nanos))
        guard timestamp.isValid else { return nil }
        self = timestamp
    }

    // Calendar arithmetic in the proleptic Gregorian calendar (days from civil, after H. Hinnant's published
    // algorithms), so formatting needs no Foundation calendar and stays fast on the request path.
    /// Days since the epoch of a date in the proleptic Gregorian calendar.
    public static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The UTC year, month, day and seconds into the day of `seconds` since the epoch (proleptic Gregorian).
    public static func civil(fromSeconds seconds: Int64) -> (year: Int64, month: Int64, day: Int64, secondsOfDay: Int64)
    {
        var days = seconds / 86_400
        var secondsOfDay = seconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondsOfDay)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
