import Foundation
import HearthCore
import HearthTesting
import Testing

/// Issue #17, classes 5 to 8: cursors by path, reserved names, the validations Firestore does, and the smaller
/// differences — each case with production Firestore's answer, against Hearth's real server.
@Suite("Production parity: cursors, names, validation", .sharedHearth, .timeLimit(.minutes(2)))
struct ProductionParityCursorAndWriteTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    private func seed(_ paths: [String], fields: String = #"{"n":{"integerValue":"1"}}"#) async throws {
        let writes = paths.map { #"{"update":{"name":"\#(FS.name($0))","fields":\#(fields)}}"# }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
    }

    private static let nameOrder = Q.order("__name__")

    // MARK: Class 5

    @Test("class 5: a collection group scoped to one parent by startAt(parent)/endAt(parent0)")
    func collectionGroupScopedByParent() async throws {
        let root = FS.unique("cg")
        let group = FS.unique("grp")
        try await seed([
            "\(root)/b/\(group)/1", "\(root)/b/\(group)/2", "\(root)/b/deeper/x/\(group)/3", "\(root)/b0/\(group)/4",
            "\(root)/a/\(group)/5", "\(group)/6",
        ])
        let query = Q.query(
            group, allDescendants: true, orderBy: [Self.nameOrder],
            startAt: Q.cursor([Q.ref("\(root)/b")], before: true), endAt: Q.cursor([Q.ref("\(root)/b0")], before: true))
        // In name order: `deeper` sorts before the group ID (`grp-…`).
        #expect(try await client.queryIDs(query) == ["3", "1", "2"])
    }

    @Test("class 5: a plain query's cursor outside its collection returns nothing, not 400")
    func plainCursorOutsideCollection() async throws {
        let c = FS.unique("plain")
        try await seed(["\(c)/d1", "\(c)/d2"])
        for cursor in ["aaa/d0", "zzz/d0", "\(c)/d1/sub/x"] {
            let start = Q.query(
                c, orderBy: [Self.nameOrder], startAt: Q.cursor([Q.ref(cursor)], before: true))
            #expect(try await client.queryIDs(start) == [], "startAt \(cursor)")
            let end = Q.query(c, orderBy: [Self.nameOrder], endAt: Q.cursor([Q.ref(cursor)], before: false))
            #expect(try await client.queryIDs(end) == [], "endAt \(cursor)")
        }
        let inside = Q.query(c, orderBy: [Self.nameOrder], startAt: Q.cursor([Q.ref("\(c)/d2")], before: true))
        #expect(try await client.queryIDs(inside) == ["d2"])
        let foreign = Q.query(
            c, orderBy: [Self.nameOrder],
            startAt: Q.cursor(
                [#"{"referenceValue":"projects/other/databases/(default)/documents/\#(c)/d1"}"#], before: true))
        expectError(try await client.runQuery(foreign), 400, "INVALID_ARGUMENT", messageContains: ["not under"])
    }

    // MARK: Class 6

    @Test(
        "class 6: transforms on reserved names are refused and store nothing",
        arguments: ["__name__", "__x__", "a.__x__"])
    func reservedTransformPaths(_ path: String) async throws {
        let c = FS.unique("reserved")
        let write =
            #"[{"update":{"name":"\#(FS.name(c + "/d"))","fields":{"a":{"mapValue":{}}}},"updateTransforms":[{"fieldPath":"\#(path)","setToServerValue":"REQUEST_TIME"}]}]"#
        expectError(try await client.commit(write), 400, "INVALID_ARGUMENT", messageContains: ["reserved"])
        #expect(try await client.document("\(c)/d").status == 404)
        try await seed(["\(c)/e"])
        #expect(try await client.queryIDs(Q.query(c)) == ["e"])
    }

    @Test("class 6: a referenceValue with a reserved ID is refused")
    func reservedReferenceIDs() async throws {
        let c = FS.unique("refs")
        for target in ["\(c)/__x__", "__x__/d", "\(c)/.."] {
            let write = #"[{"update":{"name":"\#(FS.name(c + "/d"))","fields":{"r":\#(Q.ref(target))}}}]"#
            expectError(try await client.commit(write), 400, "INVALID_ARGUMENT", messageContains: ["referenceValue"])
        }
        #expect(try await client.document("\(c)/d").status == 404)
    }

    // MARK: Class 7

    @Test("class 7: a cursor with more values than the stated orderBy clauses is refused")
    func cursorLongerThanOrders() async throws {
        let c = FS.unique("cursorlen")
        try await seed(["\(c)/d"])
        let tooLong = Q.query(
            c, orderBy: [Q.order("n")], startAt: Q.cursor([Q.int(1), Q.ref("\(c)/d")], before: true))
        expectError(try await client.runQuery(tooLong), 400, "INVALID_ARGUMENT", messageContains: ["orderBy"])
        let implicitOnly = Q.query(
            c, where: Q.field("n", "GREATER_THAN", Q.int(0)), startAt: Q.cursor([Q.int(1)], before: true))
        expectError(try await client.runQuery(implicitOnly), 400, "INVALID_ARGUMENT", messageContains: ["orderBy"])
        let stated = Q.query(
            c, orderBy: [Q.order("n"), Self.nameOrder], startAt: Q.cursor([Q.int(1), Q.ref("\(c)/d")], before: true))
        #expect(try await client.queryIDs(stated) == ["d"])
    }

    @Test("class 7: __name__ == beside an inequality on another field is refused")
    func nameEqualityWithInequality() async throws {
        let c = FS.unique("nameeq")
        let query = Q.query(
            c, where: Q.and(Q.field("__name__", "EQUAL", Q.ref("\(c)/d")), Q.field("n", "GREATER_THAN", Q.int(0))))
        expectError(try await client.runQuery(query), 400, "INVALID_ARGUMENT", messageContains: ["__name__"])
        let withNameRange = Q.query(
            c,
            where: Q.and(
                Q.field("__name__", "EQUAL", Q.ref("\(c)/d")), Q.field("__name__", "GREATER_THAN", Q.ref("\(c)/a"))))
        try expectOK(try await client.runQuery(withNameRange))
    }

    @Test("class 7: NOT_IN cannot be combined with OR, IN or ARRAY_CONTAINS_ANY")
    func notInCombinations() async throws {
        let c = FS.unique("notin")
        let notIn = Q.field("a", "NOT_IN", Q.array([Q.int(1)]))
        for other in [
            Q.or(Q.field("b", "EQUAL", Q.int(1)), Q.field("c", "EQUAL", Q.int(1))),
            Q.field("b", "IN", Q.array([Q.int(1)])), Q.field("b", "ARRAY_CONTAINS_ANY", Q.array([Q.int(1)])),
        ] {
            expectError(
                try await client.runQuery(Q.query(c, where: Q.and(notIn, other))), 400, "INVALID_ARGUMENT",
                messageContains: ["NOT_IN"])
        }
    }

    @Test("class 7: PATCH or DELETE on a collection path, or on an ID holding an encoded slash, is 400")
    func patchOnCollectionPath() async throws {
        let c = FS.unique("patch")
        for path in [FS.path(c), FS.path("\(c)/a%2Fb"), FS.path("\(c)/d/sub")] {
            for method in ["PATCH", "DELETE"] {
                let result = try await client.request(method, path, json: FS.document("{}"))
                expectError(result, 400, "INVALID_ARGUMENT", messageContains: ["lacks \"/\" at index"])
            }
        }
        #expect(try await client.queryIDs(Q.query(c)) == [])
        let name = FS.name(c)
        let message = expectError(try await client.request("PATCH", FS.path(c), json: "{}"), 400, "INVALID_ARGUMENT")
        #expect(message == "Document name \"\(name)\" lacks \"/\" at index \(name.utf8.count).")
    }

    @Test("class 7: proto field names are accepted as their JSON names are")
    func protoFieldNames() async throws {
        let c = FS.unique("proto")
        try await seed(["\(c)/x"], fields: #"{"n":{"integerValue":"7"}}"#)
        try await seed(["\(c)/y"], fields: #"{"n":{"integerValue":"8"}}"#)
        let body =
            #"{"structured_query":{"from":[{"collection_id":"\#(c)"}],"where":{"field_filter":{"field":{"field_path":"n"},"op":"EQUAL","value":{"integer_value":"7"}}},"order_by":[{"field":{"field_path":"n"}}]}}"#
        let answer = try expectOK(try await client.request("POST", HTTPClient.queryPath(nil, "runQuery"), json: body))
        #expect(answer.arrayValue?.compactMap { $0["document"]?["name"]?.stringValue } == [FS.name("\(c)/x")])
        let both = #"{"structuredQuery":{"from":[{"collectionId":"\#(c)","collection_id":"\#(c)"}]}}"#
        expectError(
            try await client.request("POST", HTTPClient.queryPath(nil, "runQuery"), json: both), 400,
            "INVALID_ARGUMENT", messageContains: ["Duplicate"])
    }

    // MARK: Class 8

    @Test("class 8: a kindless allDescendants query returns every document below the parent")
    func kindlessQueries() async throws {
        let c = FS.unique("kindless")
        try await seed([
            "\(c)/0", "\(c)/d1", "\(c)/d1/sub/e1", "\(c)/d2/other/e2", "\(c)-kept/k", "\(c)x/k/\(c)/k2",
        ])
        let minimum = "__id-9223372036854775808__"
        // What google-cloud-firestore's `recursive()` sends for a collection.
        let start = Q.ref(c + "/" + minimum)
        let end = JSONValue.object(["referenceValue": .string(FS.name(c + "\u{0}/" + minimum))]).jsonString
        let collection =
            #"{"from":[{"allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"}}],"startAt":{"values":[\#(start)],"before":true},"endAt":{"values":[\#(end)],"before":true}}"#
        #expect(
            try await client.query(collection).names
                == ["\(c)/0", "\(c)/d1", "\(c)/d1/sub/e1", "\(c)/d2/other/e2"].map { FS.name($0) })
        // Below one document: its subcollections' documents at any depth.
        let below = #"{"from":[{"allDescendants":true}]}"#
        #expect(try await client.query(below, parent: "\(c)/d1").names == [FS.name("\(c)/d1/sub/e1")])
        // A count of it is answered from the names alone, over the same subtree.
        let count = try await client.aggregate(below, aggregations: #"[{"alias":"n","count":{}}]"#, parent: "\(c)/d1")
        #expect(count["result"]?["aggregateFields"]?["n"] == FS.json(#"{"integerValue":"1"}"#))
        let filtered = #"{"from":[{"allDescendants":true}],"where":\#(Q.field("n", "EQUAL", Q.int(1)))}"#
        expectError(try await client.runQuery(filtered), 400, "INVALID_ARGUMENT", messageContains: ["kindless"])
        let notDescendants = #"{"from":[{}]}"#
        expectError(
            try await client.runQuery(notDescendants), 400, "INVALID_ARGUMENT", messageContains: ["collectionId"])
    }

    @Test("class 8: :batchWrite applies each write on its own and reports each status")
    func batchWrite() async throws {
        let c = FS.unique("batch")
        try await seed(["\(c)/exists"])
        let writes = [
            #"{"update":{"name":"\#(FS.name(c + "/new"))","fields":{"n":\#(Q.int(1))}}}"#,
            #"{"update":{"name":"\#(FS.name(c + "/missing"))","fields":{}},"currentDocument":{"exists":true}}"#,
            #"{"delete":"\#(FS.name(c + "/exists"))"}"#,
        ]
        let answer = try expectOK(
            try await client.request(
                "POST", FS.root() + ":batchWrite", json: #"{"writes":[\#(writes.joined(separator: ","))]}"#))
        let status = answer["status"]?.arrayValue ?? []
        #expect(status.count == 3)
        #expect(status.first == .object([:]) && status.last == .object([:]))
        #expect(status.count == 3 && status[1]["code"] == .integer(5))
        #expect(answer["writeResults"]?.arrayValue?.first?["updateTime"]?.stringValue != nil)
        #expect(try await client.queryIDs(Q.query(c)) == ["new"])
        let twice = #"{"writes":[\#(writes[0]),\#(writes[0])]}"#
        expectError(
            try await client.request("POST", FS.root() + ":batchWrite", json: twice), 400, "INVALID_ARGUMENT",
            messageContains: ["more than once"])
        let tooMany = (0...500).map { #"{"delete":"\#(FS.name(c + "/x\($0)"))"}"# }.joined(separator: ",")
        expectError(
            try await client.request("POST", FS.root() + ":batchWrite", json: #"{"writes":[\#(tooMany)]}"#), 400,
            "INVALID_ARGUMENT", messageContains: ["500"])
    }

    @Test("class 8: REQUEST_TIME is stored with millisecond precision")
    func requestTimeMilliseconds() async throws {
        let c = FS.unique("reqtime")
        let write =
            #"[{"update":{"name":"\#(FS.name(c + "/d"))","fields":{}},"updateTransforms":[{"fieldPath":"t","setToServerValue":"REQUEST_TIME"}]}]"#
        let answer = try expectOK(try await client.commit(write))
        let result = try #require(answer["writeResults"]?[0]?["transformResults"]?[0]?["timestampValue"]?.stringValue)
        let time = try #require(Timestamp(rfc3339: result))
        #expect(time.nanos % 1_000_000 == 0, "\(result)")
        let stored = try await client.fields("\(c)/d")
        #expect(stored["t"]?["timestampValue"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) == time)
    }

    @Test("class 8: nanosecond operands compare at their own precision")
    func nanosecondOperands() async throws {
        let c = FS.unique("nanos")
        try await seed(["\(c)/d"], fields: #"{"t":\#(Q.timestamp("2024-01-01T00:00:00.000001Z"))}"#)
        let cases: [(String, String, [String])] = [
            ("LESS_THAN", "2024-01-01T00:00:00.000001001Z", ["d"]),
            ("GREATER_THAN", "2024-01-01T00:00:00.000000999Z", ["d"]),
            ("EQUAL", "2024-01-01T00:00:00.000001001Z", []),
            ("GREATER_THAN_OR_EQUAL", "2024-01-01T00:00:00.000001001Z", []),
            ("EQUAL", "2024-01-01T00:00:00.000001000Z", ["d"]),
        ]
        for (op, operand, expected) in cases {
            let query = Q.query(c, where: Q.field("t", op, Q.timestamp(operand)))
            #expect(try await client.queryIDs(query) == expected, "t \(op) \(operand)")
            let ordered = Q.query(c, where: Q.field("t", op, Q.timestamp(operand)), orderBy: [Q.order("t")])
            #expect(try await client.queryIDs(ordered) == expected, "t \(op) \(operand), ordered by t")
        }
    }
}
