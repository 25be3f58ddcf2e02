import Testing

@testable import HearthCore

@Suite struct FirestoreJSONTests {
    func decode(_ json: String) throws -> Value {
        try Value(firestoreJSON: try JSONParser.parse(json), at: "fields.f")
    }

    @Test(arguments: [
        #"{"nullValue":null}"#, #"{"booleanValue":true}"#, #"{"integerValue":"-9223372036854775808"}"#,
        #"{"doubleValue":1.5}"#, #"{"doubleValue":"NaN"}"#, #"{"doubleValue":"-Infinity"}"#,
        #"{"timestampValue":"2024-05-01T12:00:00.123456Z"}"#, #"{"stringValue":"héllo \"quoted\""}"#,
        #"{"bytesValue":"AAEC/w=="}"#, #"{"referenceValue":"projects/p/databases/(default)/documents/a/b"}"#,
        #"{"geoPointValue":{"latitude":1.5,"longitude":-2}}"#,
        #"{"arrayValue":{"values":[{"integerValue":"1"},{"mapValue":{"fields":{"x":{"nullValue":null}}}}]}}"#,
        #"{"arrayValue":{}}"#, #"{"mapValue":{}}"#,
    ])
    func roundTrips(_ json: String) throws {
        let value = try decode(json)
        var bytes: [UInt8] = []
        value.appendFirestoreJSON(to: &bytes)
        let again = try Value(firestoreJSON: try JSONParser.parse(bytes), at: "f")
        #expect(again.isEquivalent(to: value) && again.typeOrder == value.typeOrder)
    }

    @Test func integerValuesTravelAsStrings() throws {
        var bytes: [UInt8] = []
        Value.integer(42).appendFirestoreJSON(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"integerValue":"42"}"#)
        #expect(try decode(#"{"integerValue":42}"#) == .integer(42))
    }

    @Test(arguments: [
        #"{"integerValue":"1.5"}"#, #"{"integerValue":"99999999999999999999"}"#, #"{"stringValue":1}"#,
        #"{"booleanValue":"true"}"#, #"{"timestampValue":"yesterday"}"#, #"{"bytesValue":"*"}"#,
        #"{"geoPointValue":{"latitude":91,"longitude":0}}"#, #"{"referenceValue":"users/alice"}"#,
        #"{"arrayValue":{"values":[{"arrayValue":{}}]}}"#, #"{"stringValue":"a","integerValue":"1"}"#, #"{}"#,
        #"{"fooValue":1}"#, #""plain""#, #"{"mapValue":{"fields":{"__reserved__":{"nullValue":null}}}}"#,
        #"{"mapValue":{"fields":{"":{"nullValue":null}}}}"#, #"{"mapValue":{"extra":1}}"#,
    ])
    func rejectsMalformedValues(_ json: String) {
        #expect(throws: HearthError.self) { try decode(json) }
    }

    /// Only names matching `__.*__` (four bytes at least) are reserved; other names with underscores are fields.
    @Test func reservedFieldNamesAreExactlyDoubleUnderscoredOnBothEnds() throws {
        for name in ["_", "__", "___", "_a_", "__a", "a__", "_a__", "__a_", "a__b"] {
            #expect(throws: Never.self) { try Value.validateFieldName(name, at: name) }
        }
        for name in ["____", "__a__", "__name__", "___a___"] {
            #expect(throws: HearthError.self) { try Value.validateFieldName(name, at: name) }
        }
    }

    @Test func errorsNameTheLocation() {
        let error = #expect(throws: HearthError.self) {
            try decode(#"{"mapValue":{"fields":{"age":{"integerValue":"x"}}}}"#)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("fields.f.age") == true)
    }

    @Test func decodesCommitWrites() throws {
        let json = try JSONParser.parse(
            #"""
            {"update":{"name":"projects/demo/databases/(default)/documents/c/d","fields":{"n":{"integerValue":"1"}}},
             "updateMask":{"fieldPaths":["n","`a.b`"]},
             "updateTransforms":[{"fieldPath":"t","setToServerValue":"REQUEST_TIME"},{"fieldPath":"k","increment":{"integerValue":"2"}}],
             "currentDocument":{"exists":true}}
            """#)
        let write = try Write(firestoreJSON: json, at: "writes[0]", database: DatabaseName(project: "demo"))
        #expect(write.path.segments == ["c", "d"])
        #expect(
            write.operation
                == .update(
                    fields: ["n": .integer(1)], mask: [FieldPath(segments: ["n"]), FieldPath(segments: ["a.b"])]))
        #expect(write.transforms.count == 2)
        #expect(write.precondition == .exists(true))
    }

    @Test(arguments: [
        #"{"update":{"name":"projects/demo/databases/(default)/documents/c/d"},"delete":"projects/demo/databases/(default)/documents/c/d"}"#,
        #"{"update":{"fields":{}}}"#,
        #"{"delete":"projects/other/databases/(default)/documents/c/d"}"#,
        #"{"transform":{"document":"projects/demo/databases/(default)/documents/c/d","fieldTransforms":[{"fieldPath":"a"}]}}"#,
        #"{"update":{"name":"projects/demo/databases/(default)/documents/c/d"},"bogus":1}"#,
        #"{"update":{"name":"projects/demo/databases/(default)/documents/c/d"},"currentDocument":{}}"#,
    ])
    func rejectsMalformedWrites(_ json: String) throws {
        let parsed = try JSONParser.parse(json)
        #expect(throws: HearthError.self) {
            try Write(firestoreJSON: parsed, at: "writes[0]", database: DatabaseName(project: "demo"))
        }
    }
}
