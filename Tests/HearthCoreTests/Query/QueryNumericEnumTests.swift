import Testing

@testable import HearthCore

/// Proto3 JSON gives an enum by name or by number; Google's Python REST transport sends numbers (issue #16).
@Suite struct QueryNumericEnumTests {
    typealias F = QueryFixture

    /// The same query written with enum names and with enum numbers.
    static let pairs: [(names: String, numbers: String)] = [
        (
            F.query(#""where":\#(F.fieldFilter("a", "LESS_THAN", #"{"integerValue":"1"}"#))"#),
            F.query(#""where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":1,"value":{"integerValue":"1"}}}"#)
        ),
        (
            F.query(#""where":\#(F.fieldFilter("a", "NOT_IN", #"{"arrayValue":{"values":[{"integerValue":"1"}]}}"#))"#),
            F.query(
                #""where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":10,"value":{"arrayValue":{"values":[{"integerValue":"1"}]}}}}"#
            )
        ),
        (
            F.query(#""where":{"unaryFilter":{"field":{"fieldPath":"a"},"op":"IS_NOT_NULL"}}"#),
            F.query(#""where":{"unaryFilter":{"field":{"fieldPath":"a"},"op":5}}"#)
        ),
        (
            F.query(#""where":{"unaryFilter":{"field":{"fieldPath":"a"},"op":"IS_NAN"}}"#),
            F.query(#""where":{"unaryFilter":{"field":{"fieldPath":"a"},"op":2}}"#)
        ),
        (
            F.query(
                #""where":{"compositeFilter":{"op":"OR","filters":[\#(F.fieldFilter("a", "EQUAL", #"{"integerValue":"1"}"#)),\#(F.fieldFilter("b", "GREATER_THAN_OR_EQUAL", #"{"integerValue":"2"}"#))]}}"#
            ),
            F.query(
                #""where":{"compositeFilter":{"op":2,"filters":[{"fieldFilter":{"field":{"fieldPath":"a"},"op":5,"value":{"integerValue":"1"}}},{"fieldFilter":{"field":{"fieldPath":"b"},"op":4,"value":{"integerValue":"2"}}}]}}"#
            )
        ),
        (
            F.query(
                #""orderBy":[{"field":{"fieldPath":"a"},"direction":"DESCENDING"},{"field":{"fieldPath":"b"},"direction":"ASCENDING"}]"#
            ),
            F.query(#""orderBy":[{"field":{"fieldPath":"a"},"direction":2},{"field":{"fieldPath":"b"},"direction":1}]"#)
        ),
    ]

    @Test(arguments: pairs.indices)
    func numbersDecodeAsNames(_ index: Int) throws {
        let (names, numbers) = Self.pairs[index]
        #expect(try F.decode(numbers) == F.decode(names))
    }

    @Test(arguments: [
        #""where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":0,"value":{"integerValue":"1"}}}"#,
        #""where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":11,"value":{"integerValue":"1"}}}"#,
        #""where":{"unaryFilter":{"field":{"fieldPath":"a"},"op":1}}"#,
        #""where":{"compositeFilter":{"op":3,"filters":[{"unaryFilter":{"field":{"fieldPath":"a"},"op":2}}]}}"#,
        #""where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":true,"value":{"integerValue":"1"}}}"#,
    ])
    func unknownNumbersAreRefused(_ members: String) {
        #expect(F.decodeError(F.query(members))?.code == .invalidArgument)
    }

    @Test func requestTimeByNumber() throws {
        let byName = try FieldTransform(
            firestoreJSON: try JSONParser.parse(#"{"fieldPath":"t","setToServerValue":"REQUEST_TIME"}"#), at: "t")
        let byNumber = try FieldTransform(
            firestoreJSON: try JSONParser.parse(#"{"fieldPath":"t","setToServerValue":1}"#), at: "t")
        #expect(byNumber == byName)
        #expect(throws: HearthError.self) {
            try FieldTransform(firestoreJSON: try JSONParser.parse(#"{"fieldPath":"t","setToServerValue":0}"#), at: "t")
        }
    }
}
