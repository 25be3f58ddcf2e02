import Foundation
import HearthCore
import HearthTesting
import Testing

/// Collection IDs with composite indexes declared for this suite (a COLLECTION index applies to every collection
/// with the ID, so tests keep their documents under unique parents).
private enum Declared {
    static let people = "qpeople"
    static let group = "qgroup"
    static let indexes =
        "["
        + [
            indexJSON(people, [("city", "ASCENDING"), ("age", "DESCENDING")]),
            indexJSON(group, scope: "COLLECTION_GROUP", [("rank", "ASCENDING")]),
            indexJSON(group, scope: "COLLECTION_GROUP", [("kind", "ASCENDING"), ("rank", "DESCENDING")]),
        ].joined(separator: ",") + "]"
}

/// `:runQuery` ordering, cursors, offset/limit, select, collection groups and subcollections.
@Suite("Query ordering and cursors", .withIndexes("order", Declared.indexes), .timeLimit(.minutes(2)))
struct QueryOrderTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    private func seed(_ collection: String, _ docs: [(String, String)]) async throws {
        let writes = docs.map { id, fields in
            #"{"update":{"name":"\#(FS.name("\(collection)/\(id)"))","fields":\#(fields)}}"#
        }
        try expectOK(try await client.commit("[\(writes.joined(separator: ","))]"))
    }

    /// `qpeople` under a unique parent document: city and age, some missing.
    private func seedPeople() async throws -> (parent: String, ids: (String) -> String) {
        let parent = "\(FS.unique("org"))/o"
        let city = { (name: String) in #""city":\#(Q.string(name))"# }
        let age = { (value: Int64) in #""age":\#(Q.int(value))"# }
        try await seed(
            "\(parent)/\(Declared.people)",
            [
                ("p1", "{\(city("Oslo")),\(age(30))}"), ("p2", "{\(city("Bergen")),\(age(25))}"),
                ("p3", "{\(city("Oslo")),\(age(41))}"), ("p4", "{\(city("Bergen")),\(age(25))}"),
                ("p5", "{\(city("Oslo")),\(age(30))}"), ("p6", "{\(city("Alta"))}"), ("p7", "{\(age(50))}"),
                ("p8", "{\(city("Bergen")),\(age(60))}"),
            ])
        return (parent, { $0 })
    }

    private func people(
        where filter: String? = nil, orderBy: [String] = [], sourceLocation: SourceLocation = #_sourceLocation,
        parent: String
    ) async throws -> [String] {
        try await client.queryIDs(
            Q.query(Declared.people, where: filter, orderBy: orderBy), parent: parent, sourceLocation: sourceLocation)
    }

    @Test(
        "orderBy one field, asc and desc; documents without the field are left out; ties by __name__ in the last direction"
    )
    func singleFieldOrder() async throws {
        let (parent, _) = try await seedPeople()
        #expect(
            try await people(orderBy: [Q.order("age")], parent: parent) == ["p2", "p4", "p1", "p5", "p3", "p7", "p8"])
        #expect(
            try await people(orderBy: [Q.order("age", descending: true)], parent: parent)
                == ["p8", "p7", "p3", "p5", "p1", "p4", "p2"])
        #expect(
            try await people(orderBy: [Q.order("city")], parent: parent)
                == ["p6", "p2", "p4", "p8", "p1", "p3", "p5"])
        #expect(
            try await people(orderBy: [Q.order("__name__", descending: true)], parent: parent)
                == ["p8", "p7", "p6", "p5", "p4", "p3", "p2", "p1"])
    }

    @Test("implicit ordering: an inequality orders by its field, then __name__; an explicit desc propagates")
    func implicitOrder() async throws {
        let (parent, _) = try await seedPeople()
        #expect(
            try await people(where: Q.field("age", "GREATER_THAN", Q.int(25)), parent: parent)
                == ["p1", "p5", "p3", "p7", "p8"])
        #expect(
            try await people(
                where: Q.field("age", "GREATER_THAN", Q.int(25)), orderBy: [Q.order("age", descending: true)],
                parent: parent) == ["p8", "p7", "p3", "p5", "p1"])
        #expect(
            try await people(where: Q.field("age", "NOT_EQUAL", Q.int(30)), parent: parent)
                == ["p2", "p4", "p3", "p7", "p8"])
        #expect(
            try await people(
                where: Q.field("age", "LESS_THAN", Q.int(41)), orderBy: [Q.order("age", descending: true)],
                parent: parent)
                == ["p5", "p1", "p4", "p2"])
        #expect(
            try await people(where: Q.field("city", "EQUAL", Q.string("Oslo")), parent: parent) == ["p1", "p3", "p5"],
            "equality alone orders by __name__")
    }

    @Test(
        "orderBy on two fields through the declared composite index; equality + orderBy on it; unindexed names its index"
    )
    func compositeOrder() async throws {
        let parent = "\(FS.unique("org"))/o"
        let person = { (city: String?, age: Int64?) in
            "{"
                + [city.map { #""city":\#(Q.string($0))"# }, age.map { #""age":\#(Q.int($0))"# }].compactMap { $0 }
                .joined(separator: ",") + "}"
        }
        try await seed(
            "\(parent)/\(Declared.people)",
            [
                ("q1", person("Oslo", 30)), ("q2", person("Bergen", 25)), ("q3", person("Oslo", 41)),
                ("q4", person("Bergen", 27)), ("q5", person("Alta", nil)), ("q6", person(nil, 50)),
                ("q7", person("Bergen", 60)),
            ])
        #expect(
            try await people(orderBy: [Q.order("city"), Q.order("age", descending: true)], parent: parent)
                == ["q7", "q4", "q2", "q3", "q1"])
        #expect(
            try await people(
                where: Q.field("city", "EQUAL", Q.string("Oslo")), orderBy: [Q.order("age", descending: true)],
                parent: parent) == ["q3", "q1"])
        #expect(
            try await people(
                where: Q.field("city", "EQUAL", Q.string("Bergen")), orderBy: [Q.order("age", descending: true)],
                parent: parent) == ["q7", "q4", "q2"])
        let page = try await client.query(
            Q.query(
                Declared.people, where: Q.field("city", "EQUAL", Q.string("Bergen")),
                orderBy: [Q.order("age", descending: true)], limit: 2),
            parent: parent, extra: #""explainOptions":{"analyze":true}"#)
        #expect(page.ids == ["q7", "q4"])
        #expect(page.plans.contains { $0.contains("composite") }, "\(page.plans)")
        // The same two-field order on a collection ID without an index needs one.
        let other = FS.unique("noindex")
        try await client.create(other, id: "x", fields: #"{"city":\#(Q.string("a")),"age":\#(Q.int(1))}"#)
        let message = expectError(
            try await client.runQuery(Q.query(other, orderBy: [Q.order("city"), Q.order("age", descending: true)])),
            400, "FAILED_PRECONDITION")
        #expect(message.contains(indexJSON(other, [("city", "ASCENDING"), ("age", "DESCENDING")])), "\(message)")
    }

    @Test(
        "composite index scans break ties by __name__ in the direction of the last orderBy (descending here)")
    func compositeTies() async throws {
        let (parent, _) = try await seedPeople()
        #expect(
            try await people(orderBy: [Q.order("city"), Q.order("age", descending: true)], parent: parent)
                == ["p8", "p4", "p2", "p3", "p5", "p1"])
        #expect(
            try await people(
                where: Q.field("city", "EQUAL", Q.string("Oslo")), orderBy: [Q.order("age", descending: true)],
                parent: parent) == ["p3", "p5", "p1"])
        let page = try await client.queryIDs(
            Q.query(
                Declared.people, where: Q.field("city", "EQUAL", Q.string("Oslo")),
                orderBy: [Q.order("age", descending: true)],
                limit: 2),
            parent: parent)
        #expect(page == ["p3", "p5"], "limit 2 returns the first two in query order")
    }

    @Test(
        "an explicit __name__ ASC after a DESC field is honoured (or needs an index), never ignored")
    func explicitNameDirection() async throws {
        let (parent, _) = try await seedPeople()
        let result = try await client.runQuery(
            Q.query(Declared.people, orderBy: [Q.order("age", descending: true), Q.order("__name__")]), parent: parent)
        if result.status == 400 {
            expectError(result, 400, "FAILED_PRECONDITION")
        } else {
            #expect(
                try await people(orderBy: [Q.order("age", descending: true), Q.order("__name__")], parent: parent)
                    == ["p8", "p7", "p3", "p1", "p5", "p2", "p4"])
        }
    }

    /// `scores`: s1 10, s2 20, s3 20, s4 30, s5 40, s6 without a score.
    private func seedScores() async throws -> String {
        let c = FS.unique("scores")
        let scores: [(String, Int64?)] = [("s1", 10), ("s2", 20), ("s3", 20), ("s4", 30), ("s5", 40), ("s6", nil)]
        try await seed(
            c,
            scores.map { id, score in
                (
                    id,
                    #"{"label":\#(Q.string(id))\#(score.map { #","score":\#(Q.int($0))"# } ?? ""),"m":\#(Q.map(#"{"x":\#(Q.int(1)),"y":\#(Q.int(2))}"#))}"#
                )
            })
        return c
    }

    @Test("startAt/startAfter/endAt/endBefore on a value, with duplicates and absent values")
    func cursors() async throws {
        let c = try await seedScores()
        let byScore = [Q.order("score")]
        func run(
            _ startAt: String? = nil, _ endAt: String? = nil, orderBy: [String]? = nil, where filter: String? = nil
        )
            async throws -> [String]
        {
            try await client.queryIDs(
                Q.query(c, where: filter, orderBy: orderBy ?? byScore, startAt: startAt, endAt: endAt))
        }
        #expect(try await run(Q.cursor([Q.int(20)], before: true)) == ["s2", "s3", "s4", "s5"], "startAt")
        #expect(try await run(Q.cursor([Q.int(20)], before: false)) == ["s4", "s5"], "startAfter")
        #expect(try await run(nil, Q.cursor([Q.int(20)], before: false)) == ["s1", "s2", "s3"], "endAt")
        #expect(try await run(nil, Q.cursor([Q.int(20)], before: true)) == ["s1"], "endBefore")
        #expect(try await run(Q.cursor([Q.int(15)], before: true)) == ["s2", "s3", "s4", "s5"], "absent value")
        #expect(try await run(Q.cursor([Q.double(20.0)], before: false)) == ["s4", "s5"], "20.0 == 20")
        #expect(
            try await run(Q.cursor([Q.int(20)], before: true), Q.cursor([Q.int(30)], before: false)) == [
                "s2", "s3", "s4",
            ])
        #expect(try await run(Q.cursor([Q.int(30)], before: true), Q.cursor([Q.int(20)], before: false)) == [])
        #expect(try await run(Q.cursor([Q.string("a")], before: true)) == [], "strings sort after numbers")
        #expect(try await run(nil, Q.cursor([Q.bool(true)], before: false)) == [], "booleans sort before numbers")
        #expect(
            try await run(Q.cursor([Q.int(20)], before: false), where: Q.field("score", "GREATER_THAN", Q.int(10)))
                == ["s4", "s5"])
        // Descending: cursors follow the query's order, and ties go by __name__ descending.
        let down = [Q.order("score", descending: true)]
        #expect(try await run(Q.cursor([Q.int(30)], before: true), orderBy: down) == ["s4", "s3", "s2", "s1"])
        #expect(try await run(Q.cursor([Q.int(30)], before: false), orderBy: down) == ["s3", "s2", "s1"])
        #expect(try await run(nil, Q.cursor([Q.int(20)], before: false), orderBy: down) == ["s5", "s4", "s3", "s2"])
        #expect(try await run(nil, Q.cursor([Q.int(20)], before: true), orderBy: down) == ["s5", "s4"])
    }

    @Test("cursors with a __name__ value: full cursors on (field, __name__) and on __name__ alone")
    func nameCursors() async throws {
        let c = try await seedScores()
        func run(_ startAt: String? = nil, _ endAt: String? = nil, orderBy: [String]) async throws -> [String] {
            try await client.queryIDs(Q.query(c, orderBy: orderBy, startAt: startAt, endAt: endAt))
        }
        // A cursor holds one value per stated orderBy clause, so the __name__ order is stated, as the SDKs send it.
        let byScore = [Q.order("score"), Q.order("__name__")]
        #expect(
            try await run(Q.cursor([Q.int(20), Q.ref("\(c)/s3")], before: true), orderBy: byScore) == [
                "s3", "s4", "s5",
            ])
        #expect(
            try await run(Q.cursor([Q.int(20), Q.ref("\(c)/s2")], before: false), orderBy: byScore) == [
                "s3", "s4", "s5",
            ])
        #expect(
            try await run(nil, Q.cursor([Q.int(20), Q.ref("\(c)/s3")], before: true), orderBy: byScore) == ["s1", "s2"])
        #expect(
            try await run(nil, Q.cursor([Q.int(20), Q.ref("\(c)/s2")], before: false), orderBy: byScore) == [
                "s1", "s2",
            ])
        let down = [Q.order("score", descending: true), Q.order("__name__", descending: true)]
        #expect(try await run(Q.cursor([Q.int(20), Q.ref("\(c)/s3")], before: false), orderBy: down) == ["s2", "s1"])
        // Ordered by __name__ alone, a reference cursor.
        #expect(
            try await run(Q.cursor([Q.ref("\(c)/s2")], before: false), orderBy: [Q.order("__name__")]) == [
                "s3", "s4", "s5", "s6",
            ])
        #expect(
            try await run(Q.cursor([Q.ref("\(c)/s2")], before: true), orderBy: [Q.order("__name__")]) == [
                "s2", "s3", "s4", "s5", "s6",
            ])
        #expect(
            try await run(nil, Q.cursor([Q.ref("\(c)/s4")], before: true), orderBy: [Q.order("__name__")]) == [
                "s1", "s2", "s3",
            ])
        #expect(
            try await run(nil, Q.cursor([Q.ref("\(c)/s4")], before: false), orderBy: [Q.order("__name__")]) == [
                "s1", "s2", "s3", "s4",
            ])
        #expect(
            try await run(Q.cursor([Q.ref("\(c)/s4")], before: true), orderBy: [Q.order("__name__", descending: true)])
                == ["s4", "s3", "s2", "s1"])
        #expect(
            try await run(Q.cursor([Q.ref("\(c)/s3x")], before: true), orderBy: [Q.order("__name__")]) == [
                "s4", "s5", "s6",
            ],
            "a cursor between documents")
    }

    @Test("offset and limit apply after cursors and ordering")
    func offsetAndLimit() async throws {
        let c = try await seedScores()
        let byScore = [Q.order("score")]
        #expect(try await client.queryIDs(Q.query(c, orderBy: byScore, limit: 2)) == ["s1", "s2"])
        #expect(try await client.queryIDs(Q.query(c, orderBy: byScore, offset: 2)) == ["s3", "s4", "s5"])
        #expect(try await client.queryIDs(Q.query(c, orderBy: byScore, offset: 1, limit: 2)) == ["s2", "s3"])
        #expect(try await client.queryIDs(Q.query(c, orderBy: byScore, offset: 10)) == [])
        #expect(
            try await client.queryIDs(
                Q.query(c, orderBy: byScore, startAt: Q.cursor([Q.int(20)], before: true), offset: 1, limit: 2))
                == ["s3", "s4"])
        #expect(try await client.queryIDs(Q.query(c, limit: 4)) == ["s1", "s2", "s3", "s4"])
        #expect(
            try await client.queryIDs(#"{"from":[{"collectionId":"\#(c)"}],"limit":{"value":1}}"#) == ["s1"],
            "limit as an Int32Value object")
        #expect(
            try await client.queryIDs(
                Q.query(
                    c, where: Q.or(Q.field("score", "EQUAL", Q.int(40)), Q.field("label", "EQUAL", Q.string("s1"))),
                    limit: 1))
                == ["s1"])
    }

    @Test("select returns only the listed fields; __name__ alone returns names only; an empty list returns everything")
    func select() async throws {
        let c = try await seedScores()
        let picked = try await client.query(
            Q.query(c, orderBy: [Q.order("score")], limit: 2, select: ["score", "m.y"]))
        #expect(picked.ids == ["s1", "s2"])
        expectJSON(
            picked.documents.first?["fields"],
            FS.json(#"{"score":{"integerValue":"10"},"m":{"mapValue":{"fields":{"y":{"integerValue":"2"}}}}}"#))
        _ = try FS.time(picked.documents.first?["updateTime"])

        let names = try await client.query(Q.query(c, select: ["__name__"]))
        #expect(names.ids == ["s1", "s2", "s3", "s4", "s5", "s6"])
        for document in names.documents {
            #expect(document["fields"] == nil || document["fields"] == .object([:]), "\(document.jsonString)")
        }
        let missing = try await client.query(Q.query(c, limit: 1, select: ["nothing"]))
        #expect(missing.ids == ["s1"])
        #expect(missing.documents.first?["fields"] == nil || missing.documents.first?["fields"] == .object([:]))

        let everything = try await client.query(
            #"{"from":[{"collectionId":"\#(c)"}],"select":{"fields":[]},"limit":1}"#)
        expectJSON(
            everything.documents.first?["fields"],
            FS.json(
                #"{"label":{"stringValue":"s1"},"score":{"integerValue":"10"},"m":{"mapValue":{"fields":{"x":{"integerValue":"1"},"y":{"integerValue":"2"}}}}}"#
            ))
    }

    @Test("a query under a document parent reads that document's subcollection only")
    func subcollection() async throws {
        let users = FS.unique("users")
        for (owner, ids) in [("alice", ["t1", "t2", "t3"]), ("bob", ["t1", "t4"])] {
            for id in ids {
                try await client.create("\(users)/\(owner)/todos", id: id, fields: #"{"owner":\#(Q.string(owner))}"#)
            }
        }
        try await client.create("\(users)/alice/todos/t1/todos", id: "deep", fields: "{}")
        // alice itself does not exist: a missing parent document still has its subcollections.
        #expect(try await client.queryIDs(Q.query("todos"), parent: "\(users)/alice") == ["t1", "t2", "t3"])
        #expect(try await client.queryIDs(Q.query("todos"), parent: "\(users)/bob") == ["t1", "t4"])
        #expect(try await client.queryIDs(Q.query("todos"), parent: "\(users)/carol") == [])
        #expect(
            try await client.queryIDs(
                Q.query(
                    "todos", orderBy: [Q.order("__name__", descending: true)],
                    startAt: Q.cursor([Q.ref("\(users)/alice/todos/t2")], before: true)),
                parent: "\(users)/alice") == ["t2", "t1"])
        let names = try await client.query(
            Q.query("todos", where: Q.field("owner", "EQUAL", Q.string("bob"))), parent: "\(users)/bob")
        #expect(names.names == ["\(users)/bob/todos/t1", "\(users)/bob/todos/t4"].map { FS.name($0) })
        #expect(
            try await client.queryIDs(Q.query("todos", allDescendants: true), parent: "\(users)/alice") == [
                "t1", "deep", "t2", "t3",
            ])
    }

    @Test("collection group without an index: whole group by full name; a filter needs a COLLECTION_GROUP index")
    func collectionGroupWithoutIndex() async throws {
        let group = FS.unique("grp")
        let top = FS.unique("a")  // "a_…" sorts before "p_…"
        let nest = "p_" + FS.unique("x")
        try await client.create("\(top)/d1/\(group)", id: "c", fields: #"{"n":\#(Q.int(1))}"#)
        try await client.create(group, id: "a", fields: #"{"n":\#(Q.int(1))}"#)
        try await client.create("\(nest)/d2/\(group)", id: "b", fields: #"{"n":\#(Q.int(2))}"#)
        try await client.create("\(nest)/d2/\(group)x", id: "nope", fields: "{}")
        let all = try await client.query(Q.query(group, allDescendants: true))
        let expectedNames: [String] = ["\(top)/d1/\(group)/c", "\(group)/a", "\(nest)/d2/\(group)/b"].map {
            FS.name($0)
        }
        #expect(all.names == expectedNames, "by full name, segment by segment")
        #expect(
            try await client.queryIDs(Q.query(group)) == ["a"], "without allDescendants only the top-level collection")
        #expect(try await client.queryIDs(Q.query(group, allDescendants: true), parent: "\(nest)/d2") == ["b"])
        let message = expectError(
            try await client.runQuery(Q.query(group, allDescendants: true, where: Q.field("n", "EQUAL", Q.int(1)))),
            400,
            "FAILED_PRECONDITION")
        #expect(message.contains(indexJSON(group, scope: "COLLECTION_GROUP", [("n", "ASCENDING")])), "\(message)")
    }

    @Test("collection group with a COLLECTION_GROUP index: filters, order, parent restriction")
    func collectionGroupWithIndex() async throws {
        let g = Declared.group
        let root = "\(FS.unique("runs"))/r"
        let other = "\(FS.unique("other"))/o"
        let rank = { (n: Int64, kind: String) in #"{"rank":\#(Q.int(n)),"kind":\#(Q.string(kind))}"# }
        try await client.create("\(root)/\(g)", id: "a", fields: rank(3, "x"))
        try await client.create("\(root)/sub/1/\(g)", id: "b", fields: rank(1, "y"))
        try await client.create("\(root)/sub/1/deeper/2/\(g)", id: "c", fields: rank(2, "x"))
        try await client.create("\(root)/\(g)z", id: "d", fields: rank(0, "x"))
        try await client.create("\(other)/\(g)", id: "e", fields: rank(0, "x"))
        try await client.create("\(root)/\(g)", id: "f", fields: #"{"kind":\#(Q.string("x"))}"#)
        let ranked = try await client.query(
            Q.query(g, allDescendants: true, where: Q.field("rank", "GREATER_THAN_OR_EQUAL", Q.int(0))), parent: root)
        #expect(ranked.ids == ["b", "c", "a"])
        #expect(
            ranked.names
                == ["\(root)/sub/1/\(g)/b", "\(root)/sub/1/deeper/2/\(g)/c", "\(root)/\(g)/a"].map { FS.name($0) })
        #expect(
            try await client.queryIDs(Q.query(g, allDescendants: true, orderBy: [Q.order("rank")]), parent: root)
                == ["b", "c", "a"])
        #expect(
            try await client.queryIDs(
                Q.query(g, allDescendants: true, where: Q.field("rank", "EQUAL", Q.int(0))), parent: other) == ["e"])
        #expect(
            try await client.queryIDs(
                Q.query(
                    g, allDescendants: true, where: Q.field("kind", "EQUAL", Q.string("x")),
                    orderBy: [Q.order("rank", descending: true)]), parent: root) == ["a", "c"])
        #expect(
            try await client.queryIDs(
                Q.query(g, allDescendants: true, where: Q.field("rank", "LESS_THAN", Q.int(3)), limit: 1), parent: root)
                == ["b"])
    }

    @Test("explainOptions without analyze returns the plan only, no documents")
    func explainPlanOnly() async throws {
        let c = try await seedScores()
        let result = try await client.runQuery(
            Q.query(c, where: Q.field("score", "EQUAL", Q.int(20))), extra: #""explainOptions":{}"#)
        let body = try expectOK(result)
        let elements = try #require(body.arrayValue)
        #expect(elements.count == 1, "\(result)")
        #expect(elements.first?["document"] == nil)
        let metrics = try #require(elements.first?["explainMetrics"], "\(result)")
        #expect(metrics["planSummary"]?["indexesUsed"]?.arrayValue?.isEmpty == false, "\(result)")
        #expect(metrics["executionStats"] == nil, "\(result)")

        let analyzed = try await client.query(
            Q.query(c, where: Q.field("score", "EQUAL", Q.int(20))), extra: #""explainOptions":{"analyze":true}"#)
        #expect(analyzed.ids == ["s2", "s3"])
        #expect(analyzed.explain?["executionStats"]?["resultsReturned"] == .string("2"))
        #expect(analyzed.documentsScanned == 2)
    }
}
