import Foundation
import HearthCore
import HearthTesting
import Testing

/// Listing collections, paging, ordering, and subcollections.
@Suite("Listing", .sharedHearth, .timeLimit(.minutes(2)))
struct ListTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    @Test("paging with pageSize/pageToken visits every document once, in ID order")
    func pagingVisitsEveryDocumentOnce() async throws {
        let collection = FS.unique("page")
        let ids = (0..<23).map { String(format: "doc%02d", ($0 * 7) % 23) }
        for id in ids { try await client.create(collection, id: id, fields: #"{"id":{"stringValue":"\#(id)"}}"#) }
        let expected = ids.sorted().map { FS.name("\(collection)/\($0)") }

        for pageSize in [1, 5, 23, 100] {
            let listed = try await client.listAll(collection, pageSize: pageSize)
            #expect(listed.names == expected, "pageSize \(pageSize)")
            #expect(listed.pages <= (23 + pageSize - 1) / pageSize + 1, "pageSize \(pageSize): \(listed.pages) pages")
        }
        let all = try expectOK(try await client.get(FS.path(collection)))
        #expect(all["documents"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == expected)
        #expect(all["nextPageToken"] == nil || all["nextPageToken"] == .string(""))

        let masked = try expectOK(
            try await client.get(FS.path(collection), query: [("pageSize", "1"), ("mask.fieldPaths", "nothing")]))
        #expect(masked["documents"]?[0]?["fields"] == nil)
    }

    @Test("an empty or unknown collection lists as {}")
    func emptyCollection() async throws {
        let body = try expectOK(try await client.get(FS.path(FS.unique("empty"))))
        #expect(body["documents"] == nil || body["documents"] == .array([]))
    }

    @Test(
        "orderBy=field and orderBy=field desc; documents lacking the field are left out")
    func orderByField() async throws {
        let collection = FS.unique("order")
        let values: [(String, String)] = [
            ("a", #"{"integerValue":"30"}"#), ("b", #"{"doubleValue":1.5}"#), ("c", #"{"integerValue":"-4"}"#),
            ("d", #"{"integerValue":"30"}"#), ("e", #"{"stringValue":"text"}"#), ("f", #"{"nullValue":null}"#),
            ("g", #"{"booleanValue":true}"#),
        ]
        for (id, value) in values { try await client.create(collection, id: id, fields: #"{"n":\#(value)}"#) }
        try await client.create(collection, id: "nofield", fields: #"{"other":{"integerValue":"1"}}"#)
        try await client.create(collection, id: "empty")

        // Firestore's order: null < booleans < numbers < strings; ties by document name.
        let ascending = ["f", "g", "c", "b", "a", "d", "e"].map { FS.name("\(collection)/\($0)") }
        for pageSize in [2, 100] {
            #expect(
                try await client.listAll(collection, pageSize: pageSize, orderBy: "n").names == ascending,
                "pageSize \(pageSize)")
        }
        let descending = ["e", "d", "a", "b", "c", "g", "f"].map { FS.name("\(collection)/\($0)") }
        let down = try await client.listAll(collection, pageSize: 3, orderBy: "n desc")
        #expect(down.names == descending, "ties are broken by __name__ in the same direction")

        let byName = try await client.listAll(collection, pageSize: 4, orderBy: "__name__ desc")
        #expect(
            byName.names
                == (values.map(\.0) + ["nofield", "empty"]).sorted().reversed().map { FS.name("\(collection)/\($0)") })
    }

    @Test(
        "orderBy follows Firestore's cross-type value order; equal numbers tie on the document name")
    func crossTypeOrder() async throws {
        let collection = FS.unique("types")
        let values = [
            #"{"nullValue":null}"#, #"{"booleanValue":false}"#, #"{"booleanValue":true}"#, #"{"doubleValue":"NaN"}"#,
            #"{"doubleValue":"-Infinity"}"#, #"{"integerValue":"-9223372036854775808"}"#, #"{"doubleValue":-1.5}"#,
            #"{"integerValue":"1"}"#, #"{"doubleValue":1.0}"#, #"{"doubleValue":1.5}"#,
            #"{"integerValue":"9223372036854775807"}"#,
            #"{"doubleValue":"Infinity"}"#, #"{"timestampValue":"1969-12-31T23:59:59.999999Z"}"#,
            #"{"timestampValue":"1970-01-01T00:00:00Z"}"#, #"{"stringValue":""}"#, #"{"stringValue":"A"}"#,
            #"{"stringValue":"a"}"#,
            #"{"stringValue":"é"}"#, #"{"stringValue":"\uff5a"}"#, #"{"stringValue":"\ud83d\ude00"}"#,
            #"{"bytesValue":""}"#,
            #"{"bytesValue":"AA=="}"#, #"{"bytesValue":"/w=="}"#, #"{"referenceValue":"\#(FS.name("a/b"))"}"#,
            #"{"referenceValue":"\#(FS.name("a/b/c/d"))"}"#, #"{"geoPointValue":{"latitude":-10,"longitude":50}}"#,
            #"{"geoPointValue":{"latitude":0,"longitude":-50}}"#, #"{"arrayValue":{}}"#,
            #"{"arrayValue":{"values":[{"integerValue":"1"}]}}"#,
            #"{"arrayValue":{"values":[{"integerValue":"1"},{"integerValue":"0"}]}}"#,
            #"{"arrayValue":{"values":[{"integerValue":"2"}]}}"#, #"{"mapValue":{}}"#,
            #"{"mapValue":{"fields":{"a":{"integerValue":"1"}}}}"#,
            #"{"mapValue":{"fields":{"a":{"integerValue":"2"}}}}"#,
            #"{"mapValue":{"fields":{"b":{"integerValue":"0"}}}}"#,
        ]
        // IDs run against the expected order, so a list in ID order would fail.
        let ids = values.indices.map { String(format: "v%02d", 99 - $0) }
        for (id, value) in zip(ids, values) { try await client.create(collection, id: id, fields: #"{"v":\#(value)}"#) }
        var expected = ids.map { FS.name("\(collection)/\($0)") }
        // integer 1 and double 1.0 are equal: the lower document name comes first.
        expected.swapAt(7, 8)
        #expect(try await client.listAll(collection, pageSize: 7, orderBy: "v").names == expected)
    }

    @Test("document IDs list in UTF-8 byte order")
    func idOrder() async throws {
        let collection = FS.unique("ids")
        let ids = ["b", "a", "B", "é", "😀", "\u{FF5A}", "10", "9", "_x", "A0", "a b", "a-b"]
        for id in ids { try await client.create(collection, id: id) }
        let expected = ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map {
            FS.name("\(collection)/\($0)")
        }
        #expect(try await client.listAll(collection, pageSize: 5).names == expected)
    }

    @Test("an invalid pageToken or orderBy is 400 INVALID_ARGUMENT")
    func invalidPageToken() async throws {
        let collection = FS.unique("token")
        for id in ["a", "b", "c"] { try await client.create(collection, id: id) }
        for token in ["garbage", "!!!", "n.!!", "f.bg.xx.ZDI", String(repeating: "z", count: 300)] {
            expectError(
                try await client.get(FS.path(collection), query: [("pageToken", token)]), 400, "INVALID_ARGUMENT",
                messageContains: ["pageToken"])
        }
        expectError(try await client.get(FS.path(collection), query: [("pageSize", "-1")]), 400, "INVALID_ARGUMENT")
        expectError(try await client.get(FS.path(collection), query: [("pageSize", "ten")]), 400, "INVALID_ARGUMENT")
        expectError(
            try await client.get(FS.path(collection), query: [("orderBy", "a sideways")]), 400, "INVALID_ARGUMENT")
    }
}

/// Subcollections everywhere; root-level listings need a server of their own.
@Suite("Subcollections", .timeLimit(.minutes(2)))
struct SubcollectionTests {
    @Test("create/get/list/patch/delete in subcollections; listCollectionIds on a document and on the root")
    func subcollections() async throws {
        try await withHearth { server in
            let client = server.client
            try await client.create("users", id: "a", fields: #"{"name":{"stringValue":"A"}}"#)
            try await client.create("users/a/posts", id: "p1", fields: #"{"t":{"stringValue":"first"}}"#)
            try await client.create("users/a/posts", id: "p2")
            try await client.create("users/a/likes", id: "l1")
            try await client.create("users/a/posts/p1/comments", id: "c1")
            try await client.create("users/b/posts", id: "p3")  // users/b itself does not exist
            for collection in ["zeta", "alpha", "mid"] { try await client.create(collection, id: "x") }

            let post = try expectOK(try await client.document("users/a/posts/p1"))
            #expect(post["name"] == .string(FS.name("users/a/posts/p1")))
            expectJSON(post["fields"], FS.json(#"{"t":{"stringValue":"first"}}"#))
            try expectOK(try await client.document("users/a/posts/p1/comments/c1"))

            #expect(
                try await client.listAll("users/a/posts", pageSize: 1).names == [
                    FS.name("users/a/posts/p1"), FS.name("users/a/posts/p2"),
                ])
            #expect(
                try await client.listAll("users", pageSize: 10).names == [FS.name("users/a")],
                "subcollection documents and missing parents are not listed")
            #expect(try await client.listAll("users/b/posts", pageSize: 10).names == [FS.name("users/b/posts/p3")])

            let patched = try expectOK(
                try await client.request(
                    "PATCH", FS.path("users/a/posts/p2"), query: [("updateMask.fieldPaths", "t")],
                    json: FS.document(#"{"t":{"stringValue":"second"}}"#)))
            expectJSON(patched["fields"], FS.json(#"{"t":{"stringValue":"second"}}"#))

            let underA = try expectOK(
                try await client.request("POST", "\(FS.path("users/a")):listCollectionIds", json: "{}"))
            expectJSON(underA, FS.json(#"{"collectionIds":["likes","posts"]}"#))
            let underB = try expectOK(
                try await client.request("POST", "\(FS.path("users/b")):listCollectionIds", json: "{}"))
            expectJSON(underB["collectionIds"], FS.json(#"["posts"]"#))
            let underP1 = try expectOK(
                try await client.request("POST", "\(FS.path("users/a/posts/p1")):listCollectionIds", json: "{}"))
            expectJSON(underP1["collectionIds"], FS.json(#"["comments"]"#))
            let none = try expectOK(
                try await client.request("POST", "\(FS.path("users/zz")):listCollectionIds", json: "{}"))
            #expect(none["collectionIds"] == nil || none["collectionIds"] == .array([]))

            let root = try expectOK(try await client.request("POST", "\(FS.root()):listCollectionIds", json: "{}"))
            expectJSON(root["collectionIds"], FS.json(#"["alpha","mid","users","zeta"]"#))

            var seen: [String] = []
            var token: String?
            for _ in 0..<10 {
                let body = token.map { #"{"pageSize":1,"pageToken":"\#($0)"}"# } ?? #"{"pageSize":1}"#
                let page = try expectOK(try await client.request("POST", "\(FS.root()):listCollectionIds", json: body))
                let ids = page["collectionIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(ids.count <= 1)
                seen += ids
                token = page["nextPageToken"]?.stringValue
                if token == nil || token == "" { break }
            }
            #expect(seen == ["alpha", "mid", "users", "zeta"])

            let paged = try expectOK(
                try await client.request("POST", "\(FS.path("users/a")):listCollectionIds", json: #"{"pageSize":1}"#))
            expectJSON(paged["collectionIds"], FS.json(#"["likes"]"#))
            #expect(paged["nextPageToken"]?.stringValue?.isEmpty == false)

            let onCollection = try await client.request("POST", "\(FS.path("users")):listCollectionIds", json: "{}")
            expectError(onCollection, 400, "INVALID_ARGUMENT")

            // Deleting a parent leaves its subcollections alone, as in Firestore.
            #expect(try expectOK(try await client.request("DELETE", FS.path("users/a"))) == .object([:]))
            try expectOK(try await client.document("users/a/posts/p1"))
            #expect(try await client.listAll("users", pageSize: 10).names.isEmpty)
        }
    }
}
