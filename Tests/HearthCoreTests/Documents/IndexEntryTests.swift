import HearthCore
import Testing

@Suite struct IndexEntryTests {
    /// Every field, nested ones included, is indexed under its path's text, quoted where a segment needs it, and each
    /// distinct array element once more.
    @Test func entriesNameEachFieldByItsPathText() {
        let fields: [String: Value] = [
            "title": .string("x"),
            "a b": .integer(1),
            "address": .map(["city": .string("Oslo"), "zip`code": .string("0150"), "geo": .map(["lat": .double(1)])]),
            "tags": .array([.string("t"), .string("t"), .string("u")]),
        ]
        let entries = IndexEntry.entries(for: fields)
        let valueFields = Set(entries.filter { $0.kind == .value }.map(\.field))
        let expected: [[String]] = [
            ["title"], ["a b"], ["address"], ["address", "city"], ["address", "zip`code"], ["address", "geo"],
            ["address", "geo", "lat"], ["tags"],
        ]
        #expect(valueFields == Set(expected.map { FieldPath(segments: $0).description }))
        #expect(valueFields.contains("`a b`"))
        #expect(valueFields.contains("address.`zip\\`code`"))
        #expect(valueFields.contains("address.geo.lat"))
        #expect(entries.filter { $0.kind == .value }.count == expected.count)
        let elements = entries.filter { $0.kind == .arrayElement }
        #expect(elements.map(\.field) == ["tags", "tags"])
        #expect(Set(elements.map(\.key)) == [IndexKey.encode(.string("t")), IndexKey.encode(.string("u"))])
    }
}
