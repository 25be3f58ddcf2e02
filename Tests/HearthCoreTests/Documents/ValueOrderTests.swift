import Testing

@testable import HearthCore

/// Values in Firestore's documented order, each strictly below the next.
private let ordered: [Value] = [
    .null,
    .boolean(false), .boolean(true),
    .double(.nan), .double(-.infinity), .double(-1e300), .integer(.min), .integer(-2), .double(-1.5), .integer(-1),
    .integer(0), .double(0.5), .integer(1), .double(1.5), .integer(9_007_199_254_740_992),
    .integer(9_007_199_254_740_993), .double(9_007_199_254_740_994), .integer(.max), .double(1e300), .double(.infinity),
    .timestamp(Timestamp(seconds: -1, nanos: 0)), .timestamp(Timestamp(seconds: 0, nanos: 0)),
    .timestamp(Timestamp(seconds: 0, nanos: 1000)),
    .string(""), .string("\u{0}"), .string("A"), .string("a"), .string("a\u{0}"), .string("ab"), .string("b"),
    .string("é"),
    .string("😀"),
    .bytes([]), .bytes([0]), .bytes([0, 0]), .bytes([1]), .bytes([255]),
    .reference("projects/p/databases/(default)/documents/a/b"),
    .reference("projects/p/databases/(default)/documents/a/b/c/d"),
    .reference("projects/p/databases/(default)/documents/a-z/b"),
    .reference("projects/p/databases/(default)/documents/b/a"),
    .geoPoint(latitude: -90, longitude: 0), .geoPoint(latitude: 0, longitude: -1), .geoPoint(latitude: 0, longitude: 1),
    .array([]), .array([.null]), .array([.integer(1)]), .array([.integer(1), .null]), .array([.integer(2)]),
    .map([:]), .map(["a": .integer(1)]), .map(["a": .integer(1), "b": .null]), .map(["a": .integer(2)]),
    .map(["b": .null]),
]

@Suite struct ValueOrderTests {
    @Test func orderedValuesCompareInOrder() {
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                let expected = i == j ? 0 : (i < j ? -1 : 1)
                #expect(Value.compare(a, b).signum() == expected, "compare(\(a), \(b))")
            }
        }
    }

    @Test func indexKeysSortLikeValues() {
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                let keyOrder = Value.compareBytes(IndexKey.encode(a), IndexKey.encode(b))
                let expected = i == j ? 0 : (i < j ? -1 : 1)
                #expect(keyOrder.signum() == expected, "key(\(a)) vs key(\(b))")
            }
        }
    }

    @Test(arguments: [
        (Value.integer(3), Value.double(3.0)),
        (Value.double(0.0), Value.double(-0.0)),
        (Value.double(.nan), Value.double(.nan)),
        (Value.array([.integer(1)]), Value.array([.double(1)])),
        (Value.map(["x": .integer(7)]), Value.map(["x": .double(7)])),
    ])
    func equivalentValuesShareOneKey(_ a: Value, _ b: Value) {
        #expect(a.isEquivalent(to: b))
        #expect(IndexKey.encode(a) == IndexKey.encode(b))
    }

    @Test func largeIntegersNearDoublesStayDistinct() {
        let big = Int64(1) << 62
        #expect(Value.compare(.integer(big + 1), .double(Double(big))) > 0)
        #expect(Value.compare(.integer(big - 1), .double(Double(big))) < 0)
        #expect(IndexKey.encode(.integer(big + 1)) != IndexKey.encode(.integer(big)))
    }

    @Test func typeRangesBracketEveryValueOfTheType() {
        for value in ordered {
            let (lower, upper) = IndexKey.typeRange(value.typeOrder)
            let key = IndexKey.encode(value)
            #expect(Value.compareBytes(lower, key) <= 0)
            #expect(Value.compareBytes(key, upper) < 0)
        }
    }
}
