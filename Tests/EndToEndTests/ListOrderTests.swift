import Foundation
import HearthCore
import HearthTesting
import Testing

/// The collection ID with a composite index declared for this suite; tests keep its documents under unique parents.
private enum Declared {
    static let tasks = "ltasks"
    static let indexes = "[" + indexJSON(tasks, [("priority", "DESCENDING"), ("due", "ASCENDING")]) + "]"
}

/// `documents.list` with `orderBy` on several fields, and with `showMissing`.
@Suite(
    "Listing: orderBy on several fields, showMissing", .withIndexes("list", Declared.indexes), .timeLimit(.minutes(2)))
struct ListOrderTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    /// `ltasks` under a unique parent document, with priorities and due values of several types, some missing.
    private func seedTasks() async throws -> String {
        let collection = "\(FS.unique("org"))/o/\(Declared.tasks)"
        let tasks: [(String, String)] = [
            ("t1", #"{"priority":\#(Q.int(2)),"due":\#(Q.int(10))}"#),
            ("t2", #"{"priority":\#(Q.int(3)),"due":\#(Q.int(5))}"#),
            ("t3", #"{"priority":\#(Q.int(2)),"due":\#(Q.int(1))}"#),
            ("t4", #"{"priority":\#(Q.double(2.0)),"due":\#(Q.int(10))}"#),
            ("t5", #"{"priority":\#(Q.int(3))}"#),
            ("t6", #"{"due":\#(Q.int(3))}"#),
            ("t7", #"{"priority":\#(Q.int(2)),"due":\#(Q.string("soon"))}"#),
            ("t8", #"{"priority":\#(Q.string("high")),"due":{"nullValue":null}}"#),
            ("t9", #"{"priority":\#(Q.double(1.5)),"due":\#(Q.int(0))}"#),
            ("t10", #"{"priority":\#(Q.int(3)),"due":{"nullValue":null}}"#),
        ]
        let writes = tasks.map { id, fields in
            #"{"update":{"name":"\#(FS.name("\(collection)/\(id)"))","fields":\#(fields)}}"#
        }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
        return collection
    }

    private func ids(_ names: [String]) -> [String] { names.map { String($0.split(separator: "/").last ?? "") } }

    @Test(
        "orderBy=\"priority desc, due\" pages in Firestore's order; the reversed order reads it backwards")
    func severalFields() async throws {
        let collection = try await seedTasks()
        // priority desc: the string sorts above numbers; 2 and 2.0 are equal. Then due ascending (null first, the
        // string last), then __name__ ascending. t5 and t6 lack an ordered field and are left out.
        let expected = ["t8", "t10", "t2", "t3", "t1", "t4", "t7", "t9"]
        for pageSize in [1, 2, 3, 100] {
            let listed = try await client.listAll(collection, pageSize: pageSize, orderBy: "priority desc, due")
            #expect(ids(listed.names) == expected, "pageSize \(pageSize)")
        }
        for spelling in [
            "priority desc,due asc", "priority DESC, due, __name__", "  priority   desc ,due  asc , __name__ asc ",
        ] {
            #expect(
                ids(try await client.listAll(collection, pageSize: 3, orderBy: spelling).names) == expected,
                "\(spelling)")
        }
        #expect(
            ids(try await client.listAll(collection, pageSize: 2, orderBy: "priority, due desc").names)
                == expected.reversed(),
            "the index serves the reversed order, __name__ descending")
    }

    @Test(
        "orderBy=\"priority desc, __name__ desc\" needs no composite index; ties by name descending")
    func fieldThenName() async throws {
        let collection = try await seedTasks()
        let expected = ["t8", "t5", "t2", "t10", "t7", "t4", "t3", "t1", "t9"]
        for orderBy in ["priority desc, __name__ desc", "priority desc"] {
            #expect(
                ids(try await client.listAll(collection, pageSize: 2, orderBy: orderBy).names) == expected, "\(orderBy)"
            )
        }
    }

    @Test(
        "a multi-field order no index serves answers FAILED_PRECONDITION naming the index, as :runQuery does")
    func unindexed() async throws {
        let collection = try await seedTasks()
        expectError(
            try await client.get(FS.path(collection), query: [("orderBy", "due, priority")]), 400,
            "FAILED_PRECONDITION",
            messageContains: ["index", "due", "priority"])
        expectError(
            try await client.get(FS.path(collection), query: [("orderBy", "priority desc, __name__")]), 400,
            "FAILED_PRECONDITION", messageContains: ["index"])
    }

    @Test("back-quoted field paths with spaces and commas order a list")
    func quotedFieldPath() async throws {
        let collection = FS.unique("quoted")
        for (id, value) in [("a", 3), ("b", 1), ("c", 2)] {
            try await client.create(collection, id: id, fields: #"{"x y,z":\#(Q.int(Int64(value)))}"#)
        }
        #expect(
            ids(try await client.listAll(collection, pageSize: 1, orderBy: "`x y,z` desc").names) == ["a", "c", "b"])
    }

    @Test("a page token works only with the orderBy that produced it")
    func tokenBoundToOrder() async throws {
        let collection = try await seedTasks()
        let first = try expectOK(
            try await client.get(FS.path(collection), query: [("pageSize", "2"), ("orderBy", "priority desc, due")]))
        let token = try #require(first["nextPageToken"]?.stringValue)
        let next = try expectOK(
            try await client.get(
                FS.path(collection), query: [("pageSize", "2"), ("orderBy", "priority desc,due"), ("pageToken", token)])
        )
        #expect(ids(next["documents"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []) == ["t2", "t3"])
        for orderBy in [nil, "priority desc", "priority, due desc", "priority desc, due, __name__ desc"] {
            var query = [("pageToken", token)]
            if let orderBy { query.append(("orderBy", orderBy)) }
            expectError(
                try await client.get(FS.path(collection), query: query), 400, "INVALID_ARGUMENT",
                messageContains: ["pageToken"])
        }
        // A token of one collection does not page another.
        expectError(
            try await client.get(
                FS.path("\(FS.unique("org"))/o/\(Declared.tasks)"),
                query: [("orderBy", "priority desc, due"), ("pageToken", token)]), 400, "INVALID_ARGUMENT",
            messageContains: ["pageToken"])
    }

    @Test("bad orderBy text is 400 INVALID_ARGUMENT saying what is wrong")
    func badOrderBy() async throws {
        let collection = FS.unique("bad")
        try await client.create(collection, id: "a", fields: #"{"a":\#(Q.int(1))}"#)
        let cases: [(String, [String])] = [
            ("a sideways", ["orderBy", "sideways", "asc", "desc"]),
            ("a desc extra", ["orderBy", "extra"]),
            ("a,,b", ["orderBy", "empty"]),
            ("a,", ["orderBy", "empty"]),
            (",a", ["orderBy", "empty"]),
            (" , ", ["orderBy", "empty"]),
            ("1a", ["orderBy", "field path"]),
            ("a..b", ["orderBy", "field path"]),
            ("`open desc", ["orderBy", "field path"]),
            ("a, a desc", ["orderBy", "only once"]),
            ("__name__, a", ["orderBy", "__name__", "last"]),
        ]
        for (orderBy, fragments) in cases {
            expectError(
                try await client.get(FS.path(collection), query: [("orderBy", orderBy)]), 400, "INVALID_ARGUMENT",
                messageContains: fragments)
        }
    }

    @Test("showMissing=true lists absent documents with something below them, by name only, in order, across pages")
    func showMissing() async throws {
        let users = FS.unique("users")
        try await client.create(users, id: "a", fields: #"{"n":\#(Q.int(1))}"#)
        try await client.create("\(users)/b/posts", id: "p")  // users/b does not exist
        // "b-1" sorts after "b", though "b-1/…" sorts before "b/…".
        try await client.create("\(users)/b-1/posts", id: "p")
        try await client.create(users, id: "c", fields: #"{"n":\#(Q.int(3))}"#)
        try await client.create("\(users)/c/posts", id: "p")
        try await client.create("\(users)/d/x/y/z", id: "w")  // only a deeply nested document
        try await client.create(users, id: "e")
        try await client.create("\(users)/e/s", id: "t")
        try expectOK(try await client.request("DELETE", FS.path("\(users)/e")))  // deleted, its subcollection stays
        try await client.create(users, id: "f", fields: #"{"n":\#(Q.int(6))}"#)
        try await client.create("\(users)-2", id: "other")  // a neighbouring collection is not below users

        let expected = ["a", "b", "b-1", "c", "d", "e", "f"]
        let missing: Set<String> = ["b", "b-1", "d", "e"]
        for pageSize in [1, 2, 3, 100] {
            let listed = try await client.listAll(users, pageSize: pageSize, extra: [("showMissing", "true")])
            #expect(ids(listed.names) == expected, "pageSize \(pageSize)")
            for document in listed.documents {
                let id = ids([document["name"]?.stringValue ?? ""])[0]
                if missing.contains(id) {
                    #expect(document.objectValue?.keys.sorted() == ["name"], "\(id) is missing: only its name")
                } else {
                    #expect(document["createTime"] != nil && document["updateTime"] != nil, "\(id) exists")
                }
            }
        }
        let page = try expectOK(try await client.get(FS.path(users), query: [("showMissing", "true")]))
        let found = page["documents"]?.arrayValue?.first { $0["name"]?.stringValue == FS.name("\(users)/c") }
        expectJSON(found?["fields"], FS.json(#"{"n":\#(Q.int(3))}"#))

        let masked = try await client.listAll(
            users, pageSize: 2, extra: [("showMissing", "true"), ("mask.fieldPaths", "nothing")])
        #expect(ids(masked.names) == expected)
        #expect(masked.documents.allSatisfy { $0["fields"] == nil })

        for showMissing in [[], [("showMissing", "false")]] {
            #expect(ids(try await client.listAll(users, pageSize: 2, extra: showMissing).names) == ["a", "c", "f"])
        }
        #expect(
            ids(try await client.listAll("\(users)/b/posts", pageSize: 5, extra: [("showMissing", "true")]).names) == [
                "p"
            ])
    }

    @Test("showMissing with orderBy, or not a boolean, is 400 INVALID_ARGUMENT")
    func showMissingErrors() async throws {
        let users = FS.unique("users")
        try await client.create(users, id: "a", fields: #"{"n":\#(Q.int(1))}"#)
        expectError(
            try await client.get(FS.path(users), query: [("showMissing", "true"), ("orderBy", "n")]), 400,
            "INVALID_ARGUMENT",
            messageContains: ["showMissing", "orderBy"])
        expectError(
            try await client.get(FS.path(users), query: [("showMissing", "yes")]), 400, "INVALID_ARGUMENT",
            messageContains: ["showMissing"])
    }
}
