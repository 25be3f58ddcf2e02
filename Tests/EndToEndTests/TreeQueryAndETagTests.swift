import Foundation
import HearthCore
import HearthTesting
import Testing

/// Queries and conditional requests over HTTP.
@Suite("Tree queries and ETags", .sharedHearth, .timeLimit(.minutes(2)))
struct TreeQueryAndETagTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    func keys(_ path: String, _ query: [(String, String)]) async throws -> Set<String> {
        Set(try await client.treeValue(path, query: query).objectValue?.keys ?? [:].keys)
    }

    @Test("orderBy a child (nested too), $key, $value and $priority with ranges and limits")
    func orders() async throws {
        let root = Tree.unique("q")
        try await client.treePut(
            root,
            #"""
            {"a":{"h":3,"w":{"kg":5},".priority":2},"b":{"h":1,"w":{"kg":9}},"c":{"h":"tall","w":{"kg":1},".priority":"x"},
             "d":{"w":{"kg":2},".priority":1},"e":{"h":2,"w":{"kg":7}},"10":{"h":true},"9":{"h":false}}
            """#)
        let h = #""h""#
        #expect(try await keys(root, [("orderBy", h), ("limitToFirst", "3")]) == ["d", "9", "10"])
        #expect(try await keys(root, [("orderBy", h), ("startAt", "2")]) == ["a", "e", "c"])
        #expect(try await keys(root, [("orderBy", h), ("startAt", "1"), ("endAt", "2")]) == ["b", "e"])
        #expect(try await keys(root, [("orderBy", h), ("equalTo", #""tall""#)]) == ["c"])
        #expect(try await keys(root, [("orderBy", h), ("startAfter", "1"), ("endBefore", "3")]) == ["e"])
        #expect(try await keys(root, [("orderBy", #""w/kg""#), ("limitToLast", "2")]) == ["b", "e"])
        #expect(try await keys(root, [("orderBy", #""$key""#), ("limitToFirst", "2")]) == ["9", "10"])
        #expect(
            try await keys(root, [("orderBy", #""$key""#), ("startAt", #""b""#), ("endAt", #""d""#)]) == [
                "b", "c", "d",
            ])
        #expect(try await keys(root, [("orderBy", #""$priority""#), ("startAt", "1"), ("endAt", "2")]) == ["d", "a"])
        #expect(try await keys(root, [("orderBy", #""$priority""#), ("limitToLast", "1")]) == ["c"])
        // A key argument breaks ties among equal values, as Firebase's REST client sends it.
        try await client.treePut("\(root)-ties", #"{"p":1,"q":1,"r":1,"s":2}"#)
        #expect(
            try await keys("\(root)-ties", [("orderBy", #""$value""#), ("startAt", #"1,"q""#)]) == ["q", "r", "s"])
        #expect(try await keys("\(root)-ties", [("orderBy", #""$value""#), ("equalTo", #"1,"r""#)]) == ["r"])
        // orderBy alone returns everything.
        #expect(try await keys("\(root)-ties", [("orderBy", #""$value""#)]).count == 4)
    }

    @Test("query errors are 400 with Firebase's messages")
    func errors() async throws {
        let root = Tree.unique("qe")
        expectTreeError(
            try await client.tree("GET", root, query: [("limitToFirst", "2")]), 400, "orderBy must be defined")
        expectTreeError(try await client.tree("GET", root, query: [("orderBy", "h")]), 400, "valid JSON encoded path")
        expectTreeError(
            try await client.tree("GET", root, query: [("orderBy", #""$key""#), ("startAt", "1")]), 400, "$key")
        expectTreeError(
            try await client.tree("GET", root, query: [("orderBy", #""h""#), ("limitToFirst", "-1")]), 400,
            "positive integer")
    }

    @Test("ETags: X-Firebase-ETag returns one; if-match writes only when it is current (412 with the value otherwise)")
    func etags() async throws {
        let root = Tree.unique("etag")
        try await client.treePut(root, #"{"n":1}"#)
        let get = try await client.tree("GET", root, headers: ["X-Firebase-ETag": "true"])
        let etag = try #require(get.headers["etag"])
        #expect(try await client.tree("GET", root).headers["etag"] == nil, "only on request")

        let stale = try await client.tree("PUT", root, #"{"n":2}"#, headers: ["if-match": "not-the-etag"])
        #expect(stale.status == 412)
        #expect(try stale.json() == Tree.json(#"{"n":1}"#))
        #expect(stale.headers["etag"] == etag)
        #expect(try await client.treeValue(root) == Tree.json(#"{"n":1}"#), "a stale write changes nothing")

        let fresh = try await client.tree("PUT", root, #"{"n":2}"#, headers: ["if-match": etag])
        #expect(fresh.status == 200)
        let newTag = try #require(fresh.headers["etag"])
        #expect(newTag != etag)
        #expect(try await client.tree("GET", root, headers: ["if-none-match": newTag]).status == 304)
        #expect(try await client.tree("GET", root, headers: ["if-none-match": etag]).status == 200)

        let staleDelete = try await client.tree("DELETE", root, headers: ["if-match": etag])
        #expect(staleDelete.status == 412 && (try? staleDelete.json()) == Tree.json(#"{"n":2}"#))
        #expect(try await client.tree("DELETE", root, headers: ["if-match": newTag]).status == 200)
        #expect(try await client.treeValue(root) == .null)

        // A priority is part of the tag.
        try await client.treePut(root, "1")
        let plain = try #require(
            try await client.tree("GET", root, headers: ["X-Firebase-ETag": "true"]).headers["etag"])
        try await client.treePut("\(root)/.priority", "5")
        let withPriority = try #require(
            try await client.tree("GET", root, headers: ["X-Firebase-ETag": "true"]).headers["etag"])
        #expect(plain != withPriority)
    }

    @Test("transaction-style increments with if-match from many clients lose nothing")
    func contendedConditionalIncrements() async throws {
        let root = Tree.unique("cas")
        try await client.treePut(root, "0")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { [client] in
                    for _ in 0..<10 {
                        var current = try await client.tree("GET", root, headers: ["X-Firebase-ETag": "true"])
                        while true {
                            let value = try current.json().int64Value ?? 0
                            let attempt = try await client.tree(
                                "PUT", root, "\(value + 1)", headers: ["if-match": current.headers["etag"] ?? ""])
                            if attempt.status == 200 { break }
                            #expect(attempt.status == 412)
                            current = attempt
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await client.treeValue(root) == 40)
    }
}
