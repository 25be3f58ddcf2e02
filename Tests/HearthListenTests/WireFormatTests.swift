import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct WireFormatTests {
    private func request(_ json: String) throws(HearthError) -> ListenRequest {
        try ListenRequest(firestoreJSON: try! JSONParser.parse(json), database: testDatabase)
    }

    @Test func decodesQueryAndDocumentsTargets() throws {
        let token = ResumeToken(sequence: 42).base64
        let added = try request(
            #"{"addTarget":{"targetId":3,"resumeToken":"\#(token)","query":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"rooms"}],"where":{"fieldFilter":{"field":{"fieldPath":"owner"},"op":"EQUAL","value":{"stringValue":"u"}}},"limit":5}}}}"#
        )
        guard case .addTarget(let target) = added, case .query(let query) = target.kind else {
            Issue.record("expected a query target, got \(added)")
            return
        }
        #expect(target.id == 3 && target.resumeToken == ResumeToken(sequence: 42) && !target.once)
        #expect(query.collectionID == "rooms" && query.limit == 5 && query.filter == equals("owner", .string("u")))

        let documents = try request(
            #"{"database":"projects/demo/databases/(default)","addTarget":{"targetId":"4","once":true,"documents":{"documents":["projects/demo/databases/(default)/documents/rooms/a","projects/demo/databases/(default)/documents/rooms/a"]}}}"#
        )
        #expect(documents == .addTarget(ListenTarget(id: 4, kind: .documents([.of("rooms/a")]), once: true)))
        #expect(try request(#"{"removeTarget":4,"labels":{"a":"b"}}"#) == .removeTarget(4))
        #expect(
            try request(
                #"{"addTarget":{"documents":{"documents":["projects/demo/databases/(default)/documents/a/b"]}}}"#)
                == .addTarget(ListenTarget(id: 0, kind: .documents([.of("a/b")]))))
    }

    @Test(arguments: [
        (#"{}"#, "needs addTarget or removeTarget"),
        (#"{"removeTarget":1,"addTarget":{}}"#, "not both"),
        (#"{"removeTarget":0}"#, "positive"),
        (#"{"database":"projects/other/databases/(default)","removeTarget":1}"#, "not this session's database"),
        (#"{"addTarget":{"targetId":1}}"#, "exactly one of query and documents"),
        (
            #"{"addTarget":{"targetId":-1,"documents":{"documents":["projects/demo/databases/(default)/documents/a/b"]}}}"#,
            "positive"
        ),
        (
            #"{"addTarget":{"targetId":1,"resumeToken":"bm9wZQ==","documents":{"documents":["projects/demo/databases/(default)/documents/a/b"]}}}"#,
            "resume token"
        ),
        (
            #"{"addTarget":{"targetId":1,"readTime":"2024-01-01T00:00:00Z","documents":{"documents":["projects/demo/databases/(default)/documents/a/b"]}}}"#,
            "resumeToken"
        ),
        (
            #"{"addTarget":{"targetId":1,"documents":{"documents":["projects/demo/databases/(default)/documents/a"]}}}"#,
            "not a document"
        ),
        (
            #"{"addTarget":{"targetId":1,"documents":{"documents":["projects/x/databases/(default)/documents/a/b"]}}}"#,
            "is not under"
        ),
        (#"{"addTarget":{"targetId":1,"documents":{"documents":[]}}}"#, "at least one"),
        (
            #"{"addTarget":{"targetId":1,"query":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"r"}],"select":{"fields":[{"fieldPath":"a"}]}}}}}"#,
            "remove select"
        ),
        (
            #"{"addTarget":{"targetId":1,"query":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"r"}],"offset":2}}}}"#,
            "offset"
        ),
        (
            #"{"addTarget":{"targetId":1,"query":{"structuredQuery":{"from":[{"collectionId":"r"}]}}}}"#,
            "needs its parent"
        ),
        (#"{"addTarget":{"targetId":1,"bogus":1}}"#, "Unknown name"),
    ])
    func rejectsMalformedRequests(json: String, fragment: String) {
        #expect {
            _ = try request(json)
        } throws: { error in
            guard let error = error as? HearthError else { return false }
            return error.code == .invalidArgument && error.message.contains(fragment)
        }
    }

    @Test func encodesResponsesInFirestoresJSONShapes() throws {
        let time = Timestamp(seconds: 1_700_000_000, nanos: 0)
        let stored = StoredDocument(
            path: .of("rooms/a"), fieldsJSON: Value.encodeFields(["n": .integer(1)]), createTime: time, updateTime: time
        )
        let cases: [(ListenResponse, String)] = [
            (
                .targetChange(
                    TargetChange(.current, targetIDs: [1, 2], resumeToken: ResumeToken(sequence: 7), readTime: time)),
                #"{"targetChange":{"targetChangeType":"CURRENT","targetIds":[1,2],"resumeToken":"\#(ResumeToken(sequence: 7).base64)","readTime":"2023-11-14T22:13:20.000000Z"}}"#
            ),
            (.targetChange(TargetChange(.noChange)), #"{"targetChange":{"targetChangeType":"NO_CHANGE"}}"#),
            (
                .targetChange(TargetChange(.remove, targetIDs: [3], cause: HearthError(.permissionDenied, "no"))),
                #"{"targetChange":{"targetChangeType":"REMOVE","targetIds":[3],"cause":{"code":7,"message":"no","status":"PERMISSION_DENIED"}}}"#
            ),
            (
                .documentChange(ListenDocument(stored, database: testDatabase), targetIDs: [1]),
                #"{"documentChange":{"document":{"name":"projects/demo/databases/(default)/documents/rooms/a","fields":{"n":{"integerValue":"1"}},"createTime":"2023-11-14T22:13:20.000000Z","updateTime":"2023-11-14T22:13:20.000000Z"},"targetIds":[1]}}"#
            ),
            (
                .documentDelete(
                    name: "projects/demo/databases/(default)/documents/rooms/a", removedTargetIDs: [1], readTime: time),
                #"{"documentDelete":{"document":"projects/demo/databases/(default)/documents/rooms/a","removedTargetIds":[1],"readTime":"2023-11-14T22:13:20.000000Z"}}"#
            ),
            (
                .documentRemove(
                    name: "projects/demo/databases/(default)/documents/rooms/a", removedTargetIDs: [2], readTime: time),
                #"{"documentRemove":{"document":"projects/demo/databases/(default)/documents/rooms/a","removedTargetIds":[2],"readTime":"2023-11-14T22:13:20.000000Z"}}"#
            ),
            (.filter(targetID: 1, count: 3), #"{"filter":{"targetId":1,"count":3}}"#),
        ]
        for (response, expected) in cases {
            let bytes = response.firestoreJSON
            #expect(String(decoding: bytes, as: UTF8.self) == expected)
            #expect(!bytes.contains(UInt8(ascii: "\n")), "one SSE data line")
            _ = try JSONParser.parse(bytes)
        }
    }
}
