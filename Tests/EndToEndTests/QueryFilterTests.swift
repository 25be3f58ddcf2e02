import Foundation
import HearthCore
import HearthTesting
import Testing

/// `:runQuery` filters: every field and unary operator, AND/OR, `__name__`, over mixed types.
@Suite("Query filters", .sharedHearth, .timeLimit(.minutes(2)))
struct QueryFilterTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    /// One collection with a mixed-type field `v` (null, booleans, NaN, -Infinity, 1 and 1.0, strings, array, map,
    /// timestamp), a numeric-ish field `n` (no NaN) and an array field `tags`; `z` has none of them.
    private func seedMixed() async throws -> String {
        let c = FS.unique("mixed")
        let docs: [(String, String)] = [
            ("a", #"{"v":\#(Q.null),"n":\#(Q.int(5)),"tags":\#(Q.array([Q.string("red"), Q.string("blue")]))}"#),
            ("b", #"{"v":\#(Q.bool(false)),"n":\#(Q.double(1.0)),"tags":\#(Q.array([Q.string("blue")]))}"#),
            ("c", #"{"v":\#(Q.bool(true)),"n":\#(Q.int(1)),"tags":\#(Q.array([]))}"#),
            ("d", #"{"v":\#(Q.double(.nan)),"n":\#(Q.null),"tags":\#(Q.array([Q.string("green"), Q.int(1)]))}"#),
            ("e", #"{"v":\#(Q.double(-.infinity)),"tags":\#(Q.array([Q.double(1.0), Q.string("red")]))}"#),
            ("f", #"{"v":\#(Q.int(1)),"n":\#(Q.double(2.5)),"tags":\#(Q.string("red"))}"#),
            ("g", #"{"v":\#(Q.double(1.0)),"n":\#(Q.int(-3))}"#),
            ("h", #"{"v":\#(Q.double(1.5)),"n":\#(Q.string("4")),"tags":\#(Q.array([Q.null]))}"#),
            ("i", #"{"v":\#(Q.int(2)),"n":\#(Q.int(10))}"#),
            ("j", #"{"v":\#(Q.string("1"))}"#),
            ("k", #"{"v":\#(Q.string("abc"))}"#),
            ("l", #"{"v":\#(Q.array([Q.int(1), Q.int(2)]))}"#),
            ("m", #"{"v":\#(Q.map(#"{"a":\#(Q.int(1))}"#))}"#),
            ("p", #"{"v":\#(Q.timestamp("2020-01-01T00:00:00Z"))}"#),
            ("q", #"{"v":\#(Q.int(3))}"#),
            ("z", #"{"other":\#(Q.int(1))}"#),
        ]
        let writes = docs.map { id, fields in #"{"update":{"name":"\#(FS.name("\(c)/\(id)"))","fields":\#(fields)}}"# }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
        return c
    }

    private func ids(
        _ c: String, _ filter: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> [String]
    {
        try await client.queryIDs(Q.query(c, where: filter), sourceLocation: sourceLocation)
    }

    @Test(
        "EQUAL: 1 == 1.0, and equality on strings, booleans, null, NaN, -Infinity, arrays, maps, timestamps, nested fields"
    )
    func equal() async throws {
        let c = try await seedMixed()
        let cases: [(String, [String])] = [
            (Q.int(1), ["f", "g"]), (Q.double(1.0), ["f", "g"]), (Q.string("1"), ["j"]), (Q.bool(true), ["c"]),
            (Q.bool(false), ["b"]), (Q.double(-.infinity), ["e"]), (Q.array([Q.int(1), Q.int(2)]), ["l"]),
            (Q.array([Q.int(2), Q.int(1)]), []), (Q.map(#"{"a":\#(Q.double(1.0))}"#), ["m"]),
            (Q.timestamp("2020-01-01T00:00:00.000Z"), ["p"]), (Q.int(4), []), (Q.null, ["a"]), (Q.double(.nan), ["d"]),
        ]
        for (value, expected) in cases {
            #expect(try await ids(c, Q.field("v", "EQUAL", value)) == expected, "v == \(value)")
        }
        #expect(try await ids(c, Q.field("v.a", "EQUAL", Q.int(1))) == ["m"], "nested field path")
        #expect(try await ids(c, Q.field("n", "EQUAL", Q.int(1))) == ["b", "c"], "n == 1 matches 1.0 and 1")
    }

    @Test("NOT_EQUAL excludes missing and null fields and orders by the field, then __name__")
    func notEqual() async throws {
        let c = try await seedMixed()
        #expect(
            try await ids(c, Q.field("v", "NOT_EQUAL", Q.int(1)))
                == ["b", "c", "d", "e", "h", "i", "q", "p", "j", "k", "l", "m"])
        #expect(
            try await ids(c, Q.field("v", "NOT_EQUAL", Q.string("abc")))
                == ["b", "c", "d", "e", "f", "g", "h", "i", "q", "p", "j", "l", "m"])
        #expect(try await ids(c, Q.field("n", "NOT_EQUAL", Q.double(1.0))) == ["g", "f", "a", "i", "h"])
    }

    @Test("LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL stay within the operand's type")
    func ranges() async throws {
        let c = try await seedMixed()
        #expect(try await ids(c, Q.field("n", "LESS_THAN", Q.int(5))) == ["g", "b", "c", "f"])
        #expect(try await ids(c, Q.field("n", "LESS_THAN_OR_EQUAL", Q.int(5))) == ["g", "b", "c", "f", "a"])
        #expect(try await ids(c, Q.field("n", "GREATER_THAN", Q.int(1))) == ["f", "a", "i"])
        #expect(try await ids(c, Q.field("n", "GREATER_THAN", Q.double(1.0))) == ["f", "a", "i"])
        #expect(try await ids(c, Q.field("n", "GREATER_THAN_OR_EQUAL", Q.int(1))) == ["b", "c", "f", "a", "i"])
        #expect(try await ids(c, Q.field("n", "LESS_THAN", Q.double(-3.0))) == [])
        #expect(try await ids(c, Q.field("n", "LESS_THAN_OR_EQUAL", Q.double(-3.0))) == ["g"])
        #expect(try await ids(c, Q.field("n", "GREATER_THAN_OR_EQUAL", Q.string(""))) == ["h"], "strings only")
        #expect(try await ids(c, Q.field("v", "GREATER_THAN", Q.int(1))) == ["h", "i", "q"])
        #expect(try await ids(c, Q.field("v", "GREATER_THAN_OR_EQUAL", Q.int(1))) == ["f", "g", "h", "i", "q"])
        #expect(try await ids(c, Q.field("v", "LESS_THAN", Q.string("b"))) == ["j", "k"])
        #expect(try await ids(c, Q.field("v", "GREATER_THAN", Q.string("1"))) == ["k"])
        #expect(try await ids(c, Q.field("v", "LESS_THAN_OR_EQUAL", Q.bool(true))) == ["b", "c"], "booleans only")
        #expect(
            try await ids(c, Q.field("v", "GREATER_THAN", Q.timestamp("2019-12-31T23:59:59Z"))) == ["p"],
            "timestamps only")
        #expect(
            try await ids(
                c, Q.and(Q.field("v", "GREATER_THAN_OR_EQUAL", Q.int(1)), Q.field("v", "LESS_THAN", Q.int(2)))) == [
                    "f", "g", "h",
                ])
    }

    @Test("ARRAY_CONTAINS and ARRAY_CONTAINS_ANY match array elements (1 == 1.0), never a non-array value")
    func arrayOperators() async throws {
        let c = try await seedMixed()
        #expect(try await ids(c, Q.field("tags", "ARRAY_CONTAINS", Q.string("red"))) == ["a", "e"])
        #expect(try await ids(c, Q.field("tags", "ARRAY_CONTAINS", Q.int(1))) == ["d", "e"])
        #expect(try await ids(c, Q.field("tags", "ARRAY_CONTAINS", Q.double(1.0))) == ["d", "e"])
        #expect(try await ids(c, Q.field("tags", "ARRAY_CONTAINS", Q.string("purple"))) == [])
        #expect(
            try await ids(c, Q.field("tags", "ARRAY_CONTAINS_ANY", Q.array([Q.string("blue"), Q.int(1)])))
                == ["a", "b", "d", "e"])
        #expect(try await ids(c, Q.field("tags", "ARRAY_CONTAINS_ANY", Q.array([Q.string("nope")]))) == [])
        #expect(try await ids(c, Q.field("v", "ARRAY_CONTAINS", Q.int(2))) == ["l"])
    }

    @Test("IN and NOT_IN (NOT_IN excludes missing and null, and with null in its list matches nothing)")
    func inAndNotIn() async throws {
        let c = try await seedMixed()
        #expect(
            try await ids(c, Q.field("v", "IN", Q.array([Q.int(1), Q.string("abc"), Q.bool(false)])))
                == ["b", "f", "g", "k"])
        #expect(
            try await ids(c, Q.field("v", "IN", Q.array([Q.map(#"{"a":\#(Q.int(1))}"#), Q.double(3)]))) == ["m", "q"])
        #expect(try await ids(c, Q.field("n", "IN", Q.array([Q.double(1.0), Q.int(10)]))) == ["b", "c", "i"])
        #expect(
            try await ids(c, Q.field("v", "NOT_IN", Q.array([Q.int(1), Q.string("abc"), Q.bool(false)])))
                == ["c", "d", "e", "h", "i", "q", "p", "j", "l", "m"])
        #expect(try await ids(c, Q.field("v", "NOT_IN", Q.array([Q.int(1), Q.null]))) == [])
    }

    @Test(
        "IN with array values matches whole arrays (Firestore: where('regions', 'in', [['west_coast'], ['east_coast']]))"
    )
    func inWithArrayValues() async throws {
        let c = try await seedMixed()
        let operand = Q.array([Q.array([Q.int(1), Q.int(2)]), Q.array([Q.string("x")])])
        #expect(try await ids(c, Q.field("v", "IN", operand)) == ["l"])
        #expect(
            try await ids(c, Q.field("v", "NOT_IN", Q.array([Q.array([Q.int(1), Q.int(2)])])))
                == ["b", "c", "d", "e", "f", "g", "h", "i", "q", "p", "j", "k", "m"])
    }

    @Test("IS_NULL, IS_NAN, IS_NOT_NULL, IS_NOT_NAN")
    func unary() async throws {
        let c = try await seedMixed()
        #expect(try await ids(c, Q.unary("v", "IS_NULL")) == ["a"])
        #expect(try await ids(c, Q.unary("n", "IS_NULL")) == ["d"])
        #expect(try await ids(c, Q.unary("v", "IS_NAN")) == ["d"])
        #expect(try await ids(c, Q.unary("n", "IS_NAN")) == [])
        #expect(
            try await ids(c, Q.unary("v", "IS_NOT_NULL"))
                == ["b", "c", "d", "e", "f", "g", "h", "i", "q", "p", "j", "k", "l", "m"])
        #expect(
            try await ids(c, Q.unary("v", "IS_NOT_NAN"))
                == ["b", "c", "e", "f", "g", "h", "i", "q", "p", "j", "k", "l", "m"])
        #expect(try await ids(c, Q.unary("n", "IS_NOT_NULL")) == ["g", "b", "c", "f", "a", "i", "h"])
    }

    @Test("composite AND of equalities, array-contains, unary and ranges")
    func and() async throws {
        let c = try await seedMixed()
        #expect(
            try await ids(c, Q.and(Q.field("tags", "ARRAY_CONTAINS", Q.string("red")), Q.unary("v", "IS_NULL"))) == [
                "a"
            ])
        #expect(try await ids(c, Q.and(Q.field("v", "EQUAL", Q.int(1)), Q.field("n", "EQUAL", Q.double(2.5)))) == ["f"])
        #expect(try await ids(c, Q.and(Q.field("v", "EQUAL", Q.int(1)), Q.field("n", "EQUAL", Q.int(5)))) == [])
        #expect(
            try await ids(c, Q.and(Q.field("n", "GREATER_THAN", Q.int(0)), Q.field("n", "NOT_EQUAL", Q.int(5))))
                == ["b", "c", "f", "i"])
        #expect(
            try await ids(c, Q.and(Q.and(Q.field("v", "EQUAL", Q.int(1))), Q.field("n", "EQUAL", Q.int(-3)))) == ["g"])
    }

    @Test("composite OR, nested AND/OR, IN inside OR; each document once, in __name__ order")
    func or() async throws {
        let c = try await seedMixed()
        #expect(
            try await ids(c, Q.or(Q.field("v", "EQUAL", Q.bool(true)), Q.field("n", "EQUAL", Q.int(10)))) == ["c", "i"])
        #expect(
            try await ids(c, Q.or(Q.field("v", "EQUAL", Q.int(1)), Q.field("n", "EQUAL", Q.double(2.5)))) == ["f", "g"])
        #expect(
            try await ids(
                c,
                Q.or(
                    Q.and(Q.field("v", "EQUAL", Q.int(1)), Q.field("n", "EQUAL", Q.int(-3))),
                    Q.and(Q.field("tags", "ARRAY_CONTAINS", Q.string("blue")), Q.field("n", "EQUAL", Q.int(5)))))
                == ["a", "g"])
        #expect(
            try await ids(
                c, Q.or(Q.field("v", "IN", Q.array([Q.string("abc"), Q.string("1")])), Q.field("n", "EQUAL", Q.int(1))))
                == ["b", "c", "j", "k"])
        #expect(
            try await ids(
                c,
                Q.and(
                    Q.or(Q.field("v", "EQUAL", Q.int(1)), Q.field("v", "EQUAL", Q.int(2))),
                    Q.or(Q.field("n", "EQUAL", Q.int(10)), Q.field("n", "EQUAL", Q.int(-3)))))
                == ["g", "i"])
        #expect(
            try await ids(c, Q.or(Q.field("n", "LESS_THAN", Q.int(0)), Q.field("n", "GREATER_THAN", Q.int(5))))
                == ["g", "i"], "inequalities in an OR order by the field")
        #expect(try await ids(c, Q.or(Q.unary("v", "IS_NULL"), Q.unary("v", "IS_NAN"))) == ["a", "d"])
    }

    @Test("__name__ filters: ==, IN, ranges, !=, NOT_IN, and with a field inequality")
    func nameFilters() async throws {
        let c = try await seedMixed()
        #expect(try await ids(c, Q.field("__name__", "EQUAL", Q.ref("\(c)/f"))) == ["f"])
        #expect(try await ids(c, Q.field("__name__", "EQUAL", Q.ref("\(c)/nothing"))) == [])
        #expect(
            try await ids(c, Q.field("__name__", "IN", Q.array([Q.ref("\(c)/k"), Q.ref("\(c)/a"), Q.ref("\(c)/zzz")])))
                == ["a", "k"])
        #expect(try await ids(c, Q.field("__name__", "GREATER_THAN", Q.ref("\(c)/p"))) == ["q", "z"])
        #expect(try await ids(c, Q.field("__name__", "LESS_THAN", Q.ref("\(c)/c"))) == ["a", "b"])
        #expect(try await ids(c, Q.field("__name__", "LESS_THAN_OR_EQUAL", Q.ref("\(c)/c"))) == ["a", "b", "c"])
        #expect(try await ids(c, Q.field("__name__", "GREATER_THAN_OR_EQUAL", Q.ref("\(c)/q"))) == ["q", "z"])
        let all = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "p", "q", "z"]
        #expect(try await ids(c, Q.field("__name__", "NOT_EQUAL", Q.ref("\(c)/a"))) == Array(all.dropFirst()))
        #expect(
            try await ids(c, Q.field("__name__", "NOT_IN", Q.array([Q.ref("\(c)/a"), Q.ref("\(c)/z")])))
                == Array(all.dropFirst().dropLast()))
        #expect(
            try await ids(
                c, Q.and(Q.field("__name__", "GREATER_THAN_OR_EQUAL", Q.ref("\(c)/i")), Q.unary("v", "IS_NOT_NULL")))
                == ["i", "q", "p", "j", "k", "l", "m"])
        #expect(
            try await ids(c, Q.and(Q.field("__name__", "LESS_THAN", Q.ref("\(c)/h")), Q.field("v", "EQUAL", Q.int(1))))
                == ["f", "g"])
    }

    @Test(
        "the response stream: documents with name, fields, createTime, updateTime and readTime; empty is [{readTime}]")
    func responseShape() async throws {
        let c = try await seedMixed()
        let result = try await client.runQuery(Q.query(c, where: Q.field("v", "EQUAL", Q.string("abc"))))
        let body = try expectOK(result)
        #expect(result.headers["content-type"]?.hasPrefix("application/json") == true)
        let elements = try #require(body.arrayValue)
        #expect(elements.count == 1)
        let document = try #require(elements.first?["document"])
        #expect(document["name"] == .string(FS.name("\(c)/k")))
        expectJSON(document["fields"], FS.json(#"{"v":{"stringValue":"abc"}}"#))
        _ = try FS.time(document["createTime"])
        _ = try FS.time(document["updateTime"])
        _ = try FS.time(elements.first?["readTime"])

        let empty = try expectOK(try await client.runQuery(Q.query(c, where: Q.field("v", "EQUAL", Q.string("none")))))
        let only = try #require(empty.arrayValue)
        #expect(only.count == 1, "\(empty.jsonString)")
        #expect(only.first?.objectValue?.keys.sorted() == ["readTime"], "\(empty.jsonString)")
        let unknown = try expectOK(try await client.runQuery(Q.query(FS.unique("never"))))
        #expect(unknown.arrayValue?.count == 1 && unknown[0]?["document"] == nil, "\(unknown.jsonString)")
    }

    @Test("no filter returns every document of the collection, not its subcollections, in __name__ order")
    func wholeCollection() async throws {
        let c = try await seedMixed()
        try await client.create("\(c)/a/\(c)", id: "nested", fields: "{}")
        #expect(
            try await client.queryIDs(Q.query(c))
                == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "p", "q", "z"])
    }
}
