import HearthCore
import HearthStore
import Testing

@testable import HearthListen

/// A listener's view follows the same matching as `runQuery` (issue #17): null and NaN never enter a range
/// query, nor match a null or NaN `IN` operand.
@Suite struct NullAndNaNMatchingTests {
    static let nan = #"{"doubleValue":"NaN"}"#
    static let null = #"{"nullValue":null}"#

    @Test func aNaNDocumentNeverEntersARangeView() {
        let hub = CoreHarness()
        hub.write(("m/nan", fields(("d", Self.nan))), ("m/one", fields(("d", int(1)))))
        let sink = hub.open()
        let below = QueryFilter.field(FieldPath(segments: ["d"]), .lessThan, .double(42.5))
        hub.add(1, .query(query("m", where: below, orderBy: [("d", false)])))
        #expect(sink.take() == ["ADD 1", "change m/one [1]", "CURRENT 1 @2", "marker @2"])
        hub.write(("m/later", fields(("d", Self.nan))))
        #expect(sink.take() == [], "a NaN written later stays out too")
    }

    @Test func aNullDocumentNeverMatchesANullInOperand() {
        let hub = CoreHarness()
        hub.write(("z/null", fields(("zip", Self.null))), ("z/98101", fields(("zip", int(98101)))))
        let sink = hub.open()
        let filter = QueryFilter.field(FieldPath(segments: ["zip"]), .in, .array([.integer(98101), .null]))
        hub.add(1, .query(query("z", where: filter)))
        #expect(sink.take() == ["ADD 1", "change z/98101 [1]", "CURRENT 1 @2", "marker @2"])
    }
}
