import Foundation
import HearthCore
import HearthTesting
import Testing

/// Create, get, patch, delete and preconditions on single documents.
@Suite("Documents", .sharedHearth, .timeLimit(.minutes(2)))
struct DocumentTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    @Test("POST without documentId makes distinct 20-character [A-Za-z0-9] IDs")
    func autoIDs() async throws {
        let collection = FS.unique("auto")
        let ids = try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var ids: [String] = []
                    for index in 0..<25 {
                        let body = try await client.create(
                            collection, fields: #"{"w":{"integerValue":"\#(worker * 100 + index)"}}"#)
                        let name = try #require(body["name"]?.stringValue)
                        #expect(name.hasPrefix(FS.name(collection) + "/"))
                        ids.append(FS.id(of: name))
                    }
                    return ids
                }
            }
            var all: [String] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(ids.count == 100)
        #expect(Set(ids).count == 100, "auto IDs must be distinct")
        for id in ids {
            #expect(
                id.utf8.count == 20
                    && id.utf8.allSatisfy {
                        (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
                    }, "\(id)")
        }
        let listed = try await client.listAll(collection, pageSize: 1000)
        #expect(Set(listed.names.map(FS.id(of:))) == Set(ids))
    }

    @Test("POST with documentId creates it; a second create is 409 ALREADY_EXISTS and changes nothing")
    func createWithDocumentID() async throws {
        let collection = FS.unique("named")
        let created = try await client.create(collection, id: "alice", fields: #"{"n":{"integerValue":"1"}}"#)
        #expect(created["name"] == .string(FS.name("\(collection)/alice")))
        expectJSON(created["fields"], FS.json(#"{"n":{"integerValue":"1"}}"#))
        let createTime = try FS.time(created["createTime"])
        #expect(try FS.time(created["updateTime"]) == createTime)

        let again = try await client.request(
            "POST", FS.path(collection), query: [("documentId", "alice")],
            json: FS.document(#"{"n":{"integerValue":"2"}}"#))
        expectError(again, 409, "ALREADY_EXISTS", messageContains: ["alice"])

        let fetched = try expectOK(try await client.document("\(collection)/alice"))
        expectJSON(fetched["fields"], FS.json(#"{"n":{"integerValue":"1"}}"#))
        #expect(try FS.time(fetched["createTime"]) == createTime)
        #expect(Set(fetched.objectValue?.keys.map { $0 } ?? []) == ["name", "fields", "createTime", "updateTime"])
    }

    @Test("GET a missing document is 404 NOT_FOUND naming it")
    func getMissing() async throws {
        let collection = FS.unique("missing")
        expectError(try await client.document("\(collection)/nobody"), 404, "NOT_FOUND", messageContains: ["nobody"])
    }

    @Test("GET with and without mask.fieldPaths")
    func getWithMask() async throws {
        let collection = FS.unique("mask")
        try await client.create(
            collection, id: "d",
            fields:
                #"{"a":{"integerValue":"1"},"b":{"mapValue":{"fields":{"c":{"integerValue":"2"},"d":{"integerValue":"3"}}}},"x.y":{"stringValue":"dotted"},"z":{"booleanValue":true}}"#
        )
        let full = try await client.fields("\(collection)/d")
        #expect(full.objectValue?.count == 4)

        let masked = try expectOK(
            try await client.document(
                "\(collection)/d",
                query: [("mask.fieldPaths", "a"), ("mask.fieldPaths", "b.c"), ("mask.fieldPaths", "`x.y`")]))
        expectJSON(
            masked["fields"],
            FS.json(
                #"{"a":{"integerValue":"1"},"b":{"mapValue":{"fields":{"c":{"integerValue":"2"}}}},"x.y":{"stringValue":"dotted"}}"#
            ))
        #expect(masked["name"] == .string(FS.name("\(collection)/d")))
        #expect(masked["updateTime"] != nil)

        let none = try expectOK(try await client.document("\(collection)/d", query: [("mask.fieldPaths", "nothere")]))
        #expect(none["fields"] == nil || none["fields"] == .object([:]), "\(none)")
        #expect(none["name"] == .string(FS.name("\(collection)/d")))
    }

    static let everyType = #"""
        {
          "null": {"nullValue": null},
          "yes": {"booleanValue": true},
          "no": {"booleanValue": false},
          "zero": {"integerValue": "0"},
          "int": {"integerValue": "-42"},
          "int64min": {"integerValue": "-9223372036854775808"},
          "int64max": {"integerValue": "9223372036854775807"},
          "double": {"doubleValue": 3.25},
          "tenth": {"doubleValue": 0.1},
          "nan": {"doubleValue": "NaN"},
          "inf": {"doubleValue": "Infinity"},
          "ninf": {"doubleValue": "-Infinity"},
          "negzero": {"doubleValue": -0.0},
          "tiny": {"doubleValue": 1e-300},
          "huge": {"doubleValue": 1.7976931348623157e308},
          "time": {"timestampValue": "2024-05-01T12:34:56.123456Z"},
          "epoch": {"timestampValue": "1970-01-01T00:00:00Z"},
          "old": {"timestampValue": "0001-01-01T00:00:00Z"},
          "string": {"stringValue": "h\u00e9llo \ud83d\ude00 \"quoted\" back\\slash\nnew\tline \u0001 \u2028 <>&"},
          "empty": {"stringValue": ""},
          "bytes": {"bytesValue": "AAEC/f7/"},
          "ref": {"referenceValue": "projects/demo/databases/(default)/documents/users/alice/posts/p1"},
          "geo": {"geoPointValue": {"latitude": -33.8688, "longitude": 151.2093}},
          "emptyArray": {"arrayValue": {}},
          "emptyMap": {"mapValue": {}},
          "array": {"arrayValue": {"values": [
            {"integerValue": "1"}, {"stringValue": "two"}, {"nullValue": null},
            {"mapValue": {"fields": {"inner": {"arrayValue": {"values": [{"booleanValue": true}, {"mapValue": {"fields": {"deep": {"doubleValue": 2.5}}}}]}}}}}
          ]}},
          "map": {"mapValue": {"fields": {
            "list": {"arrayValue": {"values": [{"mapValue": {"fields": {"k": {"stringValue": "v"}}}}]}},
            "nested": {"mapValue": {"fields": {"t": {"timestampValue": "2000-02-29T23:59:59.999999Z"}}}},
            "émoji 🔥 key": {"integerValue": "7"}
          }}}
        }
        """#

    @Test("every Value type round-trips exactly through create, GET, list and batchGet")
    func everyValueTypeRoundTrips() async throws {
        let collection = FS.unique("types")
        let expected = FS.canonicalTimestamps(FS.json(Self.everyType))
        let created = try expectOK(
            try await client.request(
                "POST", FS.path(collection), query: [("documentId", "all")], json: FS.document(Self.everyType)))
        expectJSON(FS.canonicalTimestamps(created["fields"] ?? .null), expected, "create response")

        let fetched = try await client.document("\(collection)/all")
        expectJSON(FS.canonicalTimestamps(try expectOK(fetched)["fields"] ?? .null), expected, "GET")
        // HearthCore's parser reads `-0` as an integer, so check the sign of negative zero on the wire.
        #expect(fetched.text.contains(#""negzero":{"doubleValue":-0"#), "\(fetched.text.prefix(300))")
        #expect(!fetched.text.contains(#""negzero":{"doubleValue":0"#))

        let listed = try expectOK(try await client.get(FS.path(collection)))
        expectJSON(FS.canonicalTimestamps(listed["documents"]?[0]?["fields"] ?? .null), expected, "list")

        let batch = try expectOK(
            try await client.request(
                "POST", "\(FS.root()):batchGet", json: #"{"documents":["\#(FS.name("\(collection)/all"))"]}"#))
        expectJSON(FS.canonicalTimestamps(batch[0]?["found"]?["fields"] ?? .null), expected, "batchGet")

        // Integers stay strings on the wire.
        #expect(fetched.text.contains(#""int64max":{"integerValue":"9223372036854775807"}"#))
        #expect(fetched.text.contains(#""int64min":{"integerValue":"-9223372036854775808"}"#))
    }

    @Test("timestamps keep microseconds: nanoseconds are truncated, offsets normalized to UTC")
    func timestampPrecision() async throws {
        let collection = FS.unique("time")
        let body = try await client.create(
            collection, id: "t",
            fields:
                #"{"nanos":{"timestampValue":"2024-05-01T12:34:56.123456789Z"},"offset":{"timestampValue":"2024-05-01T14:34:56.5+02:00"},"milli":{"timestampValue":"2024-05-01T12:34:56.120Z"}}"#
        )
        let fields = try await client.fields("\(collection)/t")
        #expect(fields == body["fields"])
        let nanos = try FS.time(fields["nanos"]?["timestampValue"])
        #expect(nanos.seconds == 1_714_566_896 && nanos.nanos == 123_456_000, "\(nanos)")
        let offset = try FS.time(fields["offset"]?["timestampValue"])
        #expect(offset.seconds == 1_714_566_896 && offset.nanos == 500_000_000, "\(offset)")
        #expect(fields["offset"]?["timestampValue"]?.stringValue?.hasSuffix("Z") == true)
        let milli = try FS.time(fields["milli"]?["timestampValue"])
        #expect(milli.nanos == 120_000_000)
    }

    @Test(
        "a doubleValue written as the JSON literal -0 keeps its sign")
    func negativeZeroLiteral() async throws {
        let collection = FS.unique("negzero")
        try await client.create(collection, id: "z", fields: #"{"z":{"doubleValue":-0}}"#)
        let fetched = try await client.document("\(collection)/z")
        #expect(fetched.text.contains(#""z":{"doubleValue":-0"#), "\(fetched)")
    }

    @Test("PATCH without a mask overwrites the whole document, and creates a missing one")
    func patchOverwrites() async throws {
        let collection = FS.unique("overwrite")
        let created = try await client.create(
            collection, id: "d", fields: #"{"a":{"integerValue":"1"},"b":{"integerValue":"2"}}"#)
        let patched = try expectOK(
            try await client.request(
                "PATCH", FS.path("\(collection)/d"), json: FS.document(#"{"c":{"stringValue":"new"}}"#)))
        expectJSON(patched["fields"], FS.json(#"{"c":{"stringValue":"new"}}"#))
        #expect(try FS.time(patched["createTime"]) == FS.time(created["createTime"]), "createTime is kept")
        #expect(try FS.time(patched["updateTime"]) > FS.time(created["updateTime"]))
        expectJSON(try await client.fields("\(collection)/d"), FS.json(#"{"c":{"stringValue":"new"}}"#))

        let upsert = try expectOK(
            try await client.request(
                "PATCH", FS.path("\(collection)/fresh"), json: FS.document(#"{"x":{"integerValue":"5"}}"#)))
        #expect(upsert["name"] == .string(FS.name("\(collection)/fresh")))
        expectJSON(try await client.fields("\(collection)/fresh"), FS.json(#"{"x":{"integerValue":"5"}}"#))

        let emptied = try expectOK(try await client.request("PATCH", FS.path("\(collection)/d"), json: "{}"))
        #expect(emptied["fields"] == nil, "a document without fields has no fields member: \(emptied)")
    }

    @Test("PATCH with updateMask merges: dotted and back-quoted paths, masked-but-absent deletes, the rest untouched")
    func patchWithUpdateMask() async throws {
        let collection = FS.unique("merge")
        try await client.create(
            collection, id: "d",
            fields:
                #"{"a":{"mapValue":{"fields":{"b":{"integerValue":"1"},"keep":{"integerValue":"2"}}}},"x.y":{"integerValue":"1"},"x":{"mapValue":{"fields":{"y":{"integerValue":"100"}}}},"gone":{"integerValue":"1"},"untouched":{"integerValue":"5"}}"#
        )
        let patch = try await client.request(
            "PATCH", FS.path("\(collection)/d"),
            query: [
                ("updateMask.fieldPaths", "a.b"), ("updateMask.fieldPaths", "`x.y`"), ("updateMask.fieldPaths", "gone"),
                ("updateMask.fieldPaths", "brand.new"),
            ],
            json: FS.document(
                #"{"a":{"mapValue":{"fields":{"b":{"integerValue":"10"},"extra":{"integerValue":"99"}}}},"x.y":{"integerValue":"2"},"untouched":{"integerValue":"999"},"brand":{"mapValue":{"fields":{"new":{"booleanValue":true}}}}}"#
            ))
        let body = try expectOK(patch)
        let expected = FS.json(
            #"{"a":{"mapValue":{"fields":{"b":{"integerValue":"10"},"keep":{"integerValue":"2"}}}},"x.y":{"integerValue":"2"},"x":{"mapValue":{"fields":{"y":{"integerValue":"100"}}}},"untouched":{"integerValue":"5"},"brand":{"mapValue":{"fields":{"new":{"booleanValue":true}}}}}"#
        )
        #expect(body["fields"] == expected)
        #expect(try await client.fields("\(collection)/d") == expected)

        // A mask on a missing document creates it with just the masked fields.
        let created = try expectOK(
            try await client.request(
                "PATCH", FS.path("\(collection)/new"), query: [("updateMask.fieldPaths", "p.q")],
                json: FS.document(#"{"p":{"mapValue":{"fields":{"q":{"integerValue":"1"},"r":{"integerValue":"2"}}}}}"#)
            ))
        expectJSON(created["fields"], FS.json(#"{"p":{"mapValue":{"fields":{"q":{"integerValue":"1"}}}}}"#))

        // mask.fieldPaths shapes the response, not the write.
        let shaped = try expectOK(
            try await client.request(
                "PATCH", FS.path("\(collection)/d"),
                query: [("updateMask.fieldPaths", "untouched"), ("mask.fieldPaths", "untouched")],
                json: FS.document(#"{"untouched":{"integerValue":"6"}}"#)))
        expectJSON(shaped["fields"], FS.json(#"{"untouched":{"integerValue":"6"}}"#))
        #expect(try await client.fields("\(collection)/d")["a"] != nil)
    }

    @Test("back-quoted field paths with escapes address names holding back-ticks, backslashes and dots")
    func escapedFieldPaths() async throws {
        let collection = FS.unique("escape")
        try await client.create(collection, id: "d", fields: #"{"keep":{"integerValue":"0"}}"#)
        let patched = try expectOK(
            try await client.request(
                "PATCH", FS.path("\(collection)/d"),
                query: [
                    ("updateMask.fieldPaths", #"`a\`b`"#), ("updateMask.fieldPaths", #"`c\\d`"#),
                    ("updateMask.fieldPaths", "`odd key!`.`x.y`"),
                ],
                json: FS.document(
                    #"{"a`b":{"integerValue":"1"},"c\\d":{"integerValue":"2"},"odd key!":{"mapValue":{"fields":{"x.y":{"integerValue":"3"}}}}}"#
                )))
        expectJSON(
            patched["fields"],
            FS.json(
                #"{"keep":{"integerValue":"0"},"a`b":{"integerValue":"1"},"c\\d":{"integerValue":"2"},"odd key!":{"mapValue":{"fields":{"x.y":{"integerValue":"3"}}}}}"#
            ))
        let masked = try expectOK(
            try await client.document("\(collection)/d", query: [("mask.fieldPaths", #"`a\`b`"#)]))
        expectJSON(masked["fields"], FS.json(#"{"a`b":{"integerValue":"1"}}"#))
    }

    @Test("currentDocument.exists and currentDocument.updateTime preconditions on PATCH")
    func patchPreconditions() async throws {
        let collection = FS.unique("pre")
        let body = FS.document(#"{"v":{"integerValue":"1"}}"#)

        let missing = try await client.request(
            "PATCH", FS.path("\(collection)/ghost"), query: [("currentDocument.exists", "true")], json: body)
        expectError(missing, 404, "NOT_FOUND")
        expectError(try await client.document("\(collection)/ghost"), 404, "NOT_FOUND")

        let created = try expectOK(
            try await client.request(
                "PATCH", FS.path("\(collection)/d"), query: [("currentDocument.exists", "false")], json: body))
        let taken = try await client.request(
            "PATCH", FS.path("\(collection)/d"), query: [("currentDocument.exists", "false")], json: body)
        expectError(taken, 409, "ALREADY_EXISTS")

        let updateTime = try #require(created["updateTime"]?.stringValue)
        let stale = try await client.request(
            "PATCH", FS.path("\(collection)/d"), query: [("currentDocument.updateTime", "2001-02-03T04:05:06.789Z")],
            json: FS.document(#"{"v":{"integerValue":"2"}}"#))
        expectError(stale, 400, "FAILED_PRECONDITION")
        expectJSON(try await client.fields("\(collection)/d"), FS.json(#"{"v":{"integerValue":"1"}}"#))

        let matched = try expectOK(
            try await client.request(
                "PATCH", FS.path("\(collection)/d"), query: [("currentDocument.updateTime", updateTime)],
                json: FS.document(#"{"v":{"integerValue":"3"}}"#)))
        expectJSON(matched["fields"], FS.json(#"{"v":{"integerValue":"3"}}"#))

        let exists = try await client.request(
            "PATCH", FS.path("\(collection)/d"),
            query: [("currentDocument.exists", "true"), ("updateMask.fieldPaths", "w")],
            json: FS.document(#"{"w":{"integerValue":"4"}}"#))
        expectJSON(try expectOK(exists)["fields"], FS.json(#"{"v":{"integerValue":"3"},"w":{"integerValue":"4"}}"#))
    }

    @Test("DELETE: idempotent on a missing document, 404 with exists=true, preconditions checked")
    func deleteSemantics() async throws {
        let collection = FS.unique("del")
        let created = try await client.create(collection, id: "d")
        let stale = try await client.request(
            "DELETE", FS.path("\(collection)/d"), query: [("currentDocument.updateTime", "2001-02-03T04:05:06Z")])
        expectError(stale, 400, "FAILED_PRECONDITION")
        try expectOK(try await client.document("\(collection)/d"))  // still there

        let deleted = try await client.request(
            "DELETE", FS.path("\(collection)/d"),
            query: [("currentDocument.updateTime", try #require(created["updateTime"]?.stringValue))])
        #expect(try expectOK(deleted) == .object([:]))
        expectError(try await client.document("\(collection)/d"), 404, "NOT_FOUND")

        let again = try await client.request("DELETE", FS.path("\(collection)/d"))
        #expect(try expectOK(again) == .object([:]))
        let never = try await client.request("DELETE", FS.path("\(collection)/never"))
        #expect(try expectOK(never) == .object([:]))

        let required = try await client.request(
            "DELETE", FS.path("\(collection)/never"), query: [("currentDocument.exists", "true")])
        expectError(required, 404, "NOT_FOUND")

        // A deleted document can be created again.
        try await client.create(collection, id: "d")
    }

    @Test(
        "ALREADY_EXISTS and NOT_FOUND precondition messages name the full document resource name, as Firestore's do")
    func errorMessagesNameTheDocument() async throws {
        let c = FS.unique("messages")
        try await client.create(c, id: "d")
        let exists = try await client.request("POST", FS.path(c), query: [("documentId", "d")], json: "{}")
        expectError(exists, 409, "ALREADY_EXISTS", messageContains: ["Document already exists: \(FS.name("\(c)/d"))"])
        let missing = try await client.request(
            "PATCH", FS.path("\(c)/x"), query: [("currentDocument.exists", "true")], json: "{}")
        expectError(missing, 404, "NOT_FOUND", messageContains: ["No document to update: \(FS.name("\(c)/x"))"])
    }

    @Test("a document holding a string of nearly 1 MiB is created, read, queried, counted and ordered by it")
    func nearlyOneMebibyteString() async throws {
        let collection = FS.unique("big")
        // Pseudo-random letters: text neither engine compresses to a short index key.
        var state: UInt64 = 7
        let letters = String(
            decoding: (0..<1_040_000).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(ascii: "a") + UInt8((state >> 33) % 26)
            }, as: UTF8.self)
        _ = try await client.create(collection, id: "one", fields: #"{"s":\#(Q.string(letters + "1"))}"#)
        _ = try await client.create(collection, id: "two", fields: #"{"s":\#(Q.string(letters + "2"))}"#)
        _ = try await client.create(collection, id: "short", fields: #"{"s":\#(Q.string("a"))}"#)
        #expect(try await client.fields("\(collection)/one")["s"]?["stringValue"]?.stringValue == letters + "1")
        let equal = Q.query(collection, where: Q.field("s", "EQUAL", Q.string(letters + "2")))
        #expect(try await client.queryIDs(equal) == ["two"])
        let descending = Q.query(collection, orderBy: [Q.order("s", descending: true)])
        #expect(try await client.queryIDs(descending) == ["two", "one", "short"])
        let above = Q.query(collection, where: Q.field("s", "GREATER_THAN", Q.string(letters + "1")))
        let count = try await client.aggregate(above, aggregations: #"[{"alias":"n","count":{}}]"#)
        #expect(count["result"]?["aggregateFields"]?["n"] == FS.json(#"{"integerValue":"1"}"#))
    }
}
