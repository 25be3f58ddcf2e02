import Testing

@testable import HearthCore

/// `Value.documentFields(fromBody:)` must give exactly what the general reading gives (`JSONParser`, then the body's
/// `fields` through `decodeFields`) or `nil`, and never accept what the general reading rejects.
@Suite struct DocumentBodyTests {
    /// The general reading of a body the direct reader may accept: an object whose only member is `fields`.
    private func general(_ body: String, options: JSONParser.Options = .init()) -> [String: Value]? {
        guard case .object(let members)? = try? JSONParser.parse(Array(body.utf8), options: options),
            members.count == 1, let fields = members["fields"]
        else { return nil }
        return try? Value.decodeFields(fields, at: "document.fields")
    }

    private func direct(_ body: String, options: JSONParser.Options = .init()) -> [String: Value]? {
        Value.documentFields(fromBody: Array(body.utf8), options: options)
    }

    @Test(arguments: [
        #"{"fields":{"title":{"stringValue":"hello"},"n":{"integerValue":"42"},"done":{"booleanValue":false}}}"#,
        #"{"fields":{}}"#,
        " \n{ \"fields\" :\t{ \"a\" : { \"nullValue\" : null } , \"b\" : {\"doubleValue\": 1.5} } }\r\n",
        "\u{FEFF}{\"fields\":{\"a\":{\"integerValue\":7}}}",
        #"{"fields":{"m":{"mapValue":{"fields":{"x":{"stringValue":"é"},"y":{"arrayValue":{"values":[{"integerValue":"1"}]}}}}}}}"#,
        #"{"fields":{"t":{"timestampValue":"2024-05-01T12:00:00.123456Z"},"g":{"geoPointValue":{"latitude":1,"longitude":2}}}}"#,
        #"{"fields":{"_a_":{"bytesValue":"AAEC"},"r":{"referenceValue":"projects/p/databases/(default)/documents/a/b"}}}"#,
        #"{"fie\u006cds":{"esc\"aped":{"string\u0056alue":"tab\tnewline\n"}}}"#,
        #"{"fields":{"x":{"nullValue":"NULL_VALUE"},"e":{"arrayValue":{}},"f":{"mapValue":{}}}}"#,
    ])
    func readsCommonBodiesAsTheGeneralReadingDoes(body: String) throws {
        let expected = try #require(general(body))
        let fields = try #require(direct(body))
        #expect(fields == expected)
    }

    @Test(arguments: [
        // Other shapes: read the general way.
        "", "{}", #"{"name":"x","fields":{}}"#, #"{"fields":{},"updateTime":"2024-05-01T12:00:00Z"}"#,
        #"{"fields":null}"#, #"[{"fields":{}}]"#,
        // Invalid JSON, values or names: the general way gives the error.
        #"{"fields":{}}x"#, #"{"fields":{}"#, #"{"fields":{"a":{"stringValue":"x"}},}"#,
        #"{"fields":{"a":{"stringValue":"x"},"a":{"stringValue":"y"}}}"#,
        #"{"fields":{"é":{"nullValue":null},"e\u0301":{"nullValue":null}}}"#,
        #"{"fields":{},"fields":{}}"#, #"{"fields":{"a":{"stringValue":"x","integerValue":"1"}}}"#,
        #"{"fields":{"a":{}}}"#, #"{"fields":{"a":{"stringValue":1}}}"#, #"{"fields":{"a":{"fooValue":1}}}"#,
        #"{"fields":{"__a__":{"nullValue":null}}}"#, #"{"fields":{"":{"nullValue":null}}}"#,
        #"{"fields":{"a":{"integerValue":"1.5"}}}"#, #"{"fields":{"a":{"mapValue":{"fields":{"b":{"c":1}}}}}}"#,
        #"{"fields":{"a":{"mapValue":{"fields":{},"fields":{}}}}}"#, #"{"fields":{"a":{"stringValue":"\ud800"}}}"#,
        "{\"fields\":{\"a\":{\"stringValue\":\"\u{01}\"}}}", #"{"fields":{"a":{"nullValue":nul}}}"#,
    ])
    func leavesEverythingElseToTheGeneralReading(body: String) {
        #expect(direct(body) == nil)
    }

    /// The depth limit counts from the top of the body, as the parser counts it: here the innermost object of the
    /// map value is at depth 5.
    @Test func depthLimitCountsTheEnclosingObjects() {
        let body = #"{"fields":{"m":{"mapValue":{"fields":{}}}}}"#
        var five = JSONParser.Options()
        five.maxDepth = 5
        var four = JSONParser.Options()
        four.maxDepth = 4
        #expect(direct(body, options: five) == general(body, options: five))
        #expect(direct(body, options: five) != nil)
        #expect(general(body, options: four) == nil)
        #expect(direct(body, options: four) == nil)
    }
}
