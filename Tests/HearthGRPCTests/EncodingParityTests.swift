import HearthCore
import HearthGRPC
import Testing

/// One model, two encodings: the same bad write or query is refused with the same message whether it comes as REST
/// JSON or as protobuf, because both readers call the same rules.
@Suite struct EncodingParityTests {
    static let database = DatabaseName(project: "demo")
    static let root = "projects/demo/databases/(default)/documents"

    func failure(_ body: () throws(HearthError) -> Void) -> HearthError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// A write of `users/alice` with one field, `name: value`, in both encodings.
    func writeErrors(name: String, json: String, value: Value) throws -> (HearthError?, HearthError?) {
        let text = #"{"update":{"name":"\#(Self.root)/users/alice","fields":{"\#(name)":\#(json)}}}"#
        let parsed = try JSONParser.parse(text)
        let fromJSON = failure { () throws(HearthError) in
            _ = try Write(firestoreJSON: parsed, at: "writes[0]", database: Self.database)
        }
        var writer = ProtoWriter()
        writer.writeMessage(1) { document in
            document.writeString(1, "\(Self.root)/users/alice")
            Value.writeProtobufFields([name: value], number: 2, to: &document)
        }
        let fromProto = failure { () throws(HearthError) in
            _ = try Write(protobuf: try ProtoReader(writer.bytes), at: "writes[0]", database: Self.database)
        }
        return (fromJSON, fromProto)
    }

    @Test(
        arguments: [
            ("__secret__", #"{"integerValue":"1"}"#, Value.integer(1)),
            ("list", #"{"arrayValue":{"values":[{"arrayValue":{}}]}}"#, .array([.array([])])),
            ("place", #"{"geoPointValue":{"latitude":91,"longitude":0}}"#, .geoPoint(latitude: 91, longitude: 0)),
            (
                "link", #"{"referenceValue":"projects/demo/databases/(default)/documents/users"}"#,
                .reference("\(root)/users")
            ),
            ("link", #"{"referenceValue":"\#(root)/users/__x__"}"#, .reference("\(root)/users/__x__")),
        ] as [(String, String, Value)])
    func aBadValueIsRefusedAlikeInBothEncodings(name: String, json: String, value: Value) throws {
        let (fromJSON, fromProto) = try writeErrors(name: name, json: json, value: value)
        #expect(fromJSON != nil)
        #expect(fromProto == fromJSON)
    }

    @Test func aQueryBreakingAWholeQueryRuleIsRefusedAlike() throws {
        // IN takes at most 30 values.
        let values = (0...30).map { Value.integer(Int64($0)) }
        let query = StructuredQuery(
            parent: .root, collectionID: "users", filter: .field(FieldPath(segments: ["n"]), .in, .array(values)))
        var writer = ProtoWriter()
        query.writeProtobuf(to: &writer)
        let fromProto = failure { () throws(HearthError) in
            _ = try StructuredQuery(
                protobuf: try ProtoReader(writer.bytes), at: "structuredQuery", database: Self.database, parent: .root)
        }
        let fromJSON = failure { () throws(HearthError) in
            _ = try StructuredQuery(
                firestoreJSON: query.firestoreJSON(database: Self.database), at: "structuredQuery",
                database: Self.database, parent: .root)
        }
        #expect(fromJSON?.message.contains("IN takes at most 30 values") == true)
        #expect(fromProto == fromJSON)
    }
}
