import Testing

@testable import HearthCore

@Suite struct TimestampTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", Int64(0), Int32(0), "1970-01-01T00:00:00.000000Z"),
        ("2024-02-29T23:59:59.123456Z", 1_709_251_199, 123_456_000, "2024-02-29T23:59:59.123456Z"),
        ("2024-05-01T12:00:00+02:00", 1_714_557_600, 0, "2024-05-01T10:00:00.000000Z"),
        ("1969-12-31T23:59:59.5Z", -1, 500_000_000, "1969-12-31T23:59:59.500000Z"),
        ("0001-01-01T00:00:00Z", -62_135_596_800, 0, "0001-01-01T00:00:00.000000Z"),
        ("9999-12-31T23:59:59.999999999Z", 253_402_300_799, 999_999_999, "9999-12-31T23:59:59.999999Z"),
    ])
    func parsesAndFormats(_ text: String, _ seconds: Int64, _ nanos: Int32, _ formatted: String) throws {
        let timestamp = try #require(Timestamp(rfc3339: text))
        #expect(timestamp.seconds == seconds)
        #expect(timestamp.nanos == nanos)
        #expect(timestamp.rfc3339 == formatted)
    }

    @Test(arguments: [
        "", "2024-01-01", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00",
        "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1234567890Z", "10000-01-01T00:00:00Z", "2024-01-01T00:00:00Zjunk",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test func microsecondsRoundTripForNegativeTimes() {
        let timestamp = Timestamp(microseconds: -1)
        #expect(timestamp.seconds == -1)
        #expect(timestamp.nanos == 999_999_000)
        #expect(timestamp.microseconds == -1)
    }
}
