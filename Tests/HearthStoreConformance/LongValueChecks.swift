import HearthCore
import HearthStore
import Testing

/// `count` letters from a fixed pseudo-random sequence: text no engine compresses away, the same on every run.
private func letters(_ count: Int, seed: UInt64) -> String {
    var state = seed
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    for _ in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes.append(UInt8(ascii: "a") + UInt8((state >> 33) % 26))
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A prefix longer than any index key an engine stores whole (PostgreSQL keeps 1,500 bytes of one).
private let prefix = letters(2_000, seed: 1)

/// `prefix` then `suffix`.
private func long(_ suffix: String) -> Value { .string(prefix + suffix) }

extension DocumentStoreConformance {
    /// Values longer than an engine's index keys (``IndexKeyCap``): documents of up to 1 MiB commit, and equality,
    /// ranges, order, cursors, `in`, `!=`, array-contains, composite indexes and counts over values that differ
    /// only past the cap answer exactly what they answer over short values, on every engine.
    static let longValueChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("a document with a string of nearly 1 MiB commits, updates, is queried and deleted") { store in
            let big = letters(1_040_000, seed: 2)
            try await store.commitOrThrow([
                set("c/big", ["s": .string(big + "1")]), set("c/small", ["s": .string("a")]),
            ])
            #expect(try store.document(at: path("c/big"))?.fields() == ["s": .string(big + "1")])
            try await store.commitOrThrow([set("c/big", ["s": .string(big + "2")])])
            let equal = { (value: Value) in
                StructuredQuery(parent: .root, collectionID: "c", filter: filter("s", .equal, value))
            }
            #expect(try ids(store, equal(.string(big + "2"))) == ["big"])
            #expect(try ids(store, equal(.string(big + "1"))) == [])
            #expect(try ids(store, equal(.string(big))) == [])
            let ordered = StructuredQuery(parent: .root, collectionID: "c", orderBy: [QueryOrder(field: field("s"))])
            #expect(try ids(store, ordered) == ["small", "big"])
            try await store.commitOrThrow([Write(path: path("c/big"), operation: .delete)])
            #expect(try ids(store, ordered) == ["small"])
        },
        ConformanceCheck("equality, ranges, order and cursors over strings that differ past the index key cap") {
            store in
            // IDs in the opposite order to the values, so an engine ordering cut keys by ID is caught; "a" sorts
            // before every long string, whatever letters the prefix holds.
            try await store.commitOrThrow([
                set("c/z", ["s": long("a")]), set("c/y", ["s": long("b")]), set("c/x", ["s": long("c")]),
                set("c/w", ["s": long("")]), set("c/short", ["s": .string("a")]), set("c/after", ["s": long("~")]),
                set("c/number", ["s": .integer(1)]),
            ])
            func query(
                _ filter: QueryFilter? = nil, descending: Bool = false, startAt: QueryCursor? = nil,
                endAt: QueryCursor? = nil, limit: Int? = nil
            ) -> StructuredQuery {
                StructuredQuery(
                    parent: .root, collectionID: "c", filter: filter,
                    orderBy: [QueryOrder(field: field("s"), descending: descending)], startAt: startAt, endAt: endAt,
                    limit: limit)
            }
            let strings = filter("s", .greaterThanOrEqual, .string(""))
            #expect(try ids(store, query(strings)) == ["short", "w", "z", "y", "x", "after"])
            #expect(try ids(store, query(strings, descending: true)) == ["after", "x", "y", "z", "w", "short"])
            #expect(try ids(store, query(filter("s", .equal, long("b")))) == ["y"])
            #expect(try ids(store, query(filter("s", .greaterThan, long("a")))) == ["y", "x", "after"])
            #expect(try ids(store, query(filter("s", .lessThan, long("c")))) == ["short", "w", "z", "y"])
            #expect(try ids(store, query(filter("s", .lessThanOrEqual, long("")))) == ["short", "w"])
            #expect(
                try ids(store, query(.and([filter("s", .greaterThan, long("")), filter("s", .lessThan, long("c"))])))
                    == ["z", "y"])
            #expect(try ids(store, query(filter("s", .in, .array([long("c"), long("a")])))) == ["z", "x"])
            #expect(
                try ids(store, query(filter("s", .notEqual, long("b")))) == ["number", "short", "w", "z", "x", "after"])
            #expect(
                try ids(store, query(filter("s", .notIn, .array([long("a"), long("c")])))) == [
                    "number", "short", "w", "y", "after",
                ])
            // Cursors at long values, with and without a document name to break ties.
            #expect(
                try ids(store, query(strings, startAt: QueryCursor(values: [long("a")], before: false))) == [
                    "y", "x", "after",
                ])
            #expect(
                try ids(store, query(strings, startAt: QueryCursor(values: [long("a")], before: true))) == [
                    "z", "y", "x", "after",
                ])
            #expect(
                try ids(store, query(strings, endAt: QueryCursor(values: [long("b")], before: true))) == [
                    "short", "w", "z",
                ])
            #expect(
                try ids(
                    store, query(strings, descending: true, startAt: QueryCursor(values: [long("b")], before: false)))
                    == ["z", "w", "short"])
            #expect(try ids(store, query(strings, limit: 3)) == ["short", "w", "z"])
            // Paging as clients do: after the last document of each page, by value and name.
            var seen: [String] = []
            var cursor: QueryCursor?
            while true {
                var page = query(strings, startAt: cursor, limit: 2)
                page.orderBy.append(QueryOrder(field: .documentName))
                let documents = try store.runQuery(page, transaction: nil).documents
                seen += documents.map(\.path.lastSegment)
                guard documents.count == 2, let last = documents.last else { break }
                cursor = QueryCursor(
                    values: [try last.fields()["s"]!, reference(last.path.description)], before: false)
            }
            #expect(seen == ["short", "w", "z", "y", "x", "after"])
        },
        ConformanceCheck("counts over long strings are exact whether or not the index alone could answer") { store in
            try await store.commitOrThrow([
                set("c/z", ["s": long("a")]), set("c/y", ["s": long("b")]), set("c/x", ["s": long("c")]),
                set("c/short", ["s": .string("a")]), set("c/other", ["s": .string(String(prefix.prefix(1_400)))]),
            ])
            func count(_ filter: QueryFilter) throws -> Value? {
                let aggregation = AggregationQuery(
                    query: StructuredQuery(parent: .root, collectionID: "c", filter: filter),
                    aggregations: [.init(alias: "n", kind: .count(upTo: nil))])
                let results = try store.runAggregation(aggregation, transaction: nil)
                return results.values["n"]
            }
            #expect(try count(filter("s", .equal, long("b"))) == .integer(1))
            #expect(try count(filter("s", .equal, long("d"))) == .integer(0))
            #expect(try count(filter("s", .greaterThan, long("a"))) == .integer(2))
            #expect(try count(filter("s", .lessThan, long("b"))) == .integer(3))
            #expect(try count(filter("s", .greaterThanOrEqual, .string("a"))) == .integer(5))
            #expect(try count(filter("s", .equal, .string("a"))) == .integer(1))
            #expect(try count(filter("s", .in, .array([long("a"), long("c"), .string("a")]))) == .integer(3))
        },
        ConformanceCheck("array-contains and composite indexes over values longer than the index key cap") { store in
            try await DocumentStoreConformance.waitForIndexes(store)
            try await store.commitOrThrow([
                set("c/both", ["tags": .array([long("a"), long("b")])]), set("c/one", ["tags": .array([long("b")])]),
            ])
            let contains = { (value: Value) in
                StructuredQuery(parent: .root, collectionID: "c", filter: filter("tags", .arrayContains, value))
            }
            #expect(try ids(store, contains(long("a"))) == ["both"])
            #expect(try ids(store, contains(long("b"))) == ["both", "one"])
            // Dropping one of two elements that share their stored key keeps the other findable.
            try await store.commitOrThrow([set("c/both", ["tags": .array([long("b")])])])
            #expect(try ids(store, contains(long("a"))) == [])
            #expect(try ids(store, contains(long("b"))) == ["both", "one"])

            // The suite's cities index (state ascending, pop descending) with states that differ past the cap.
            try await store.commitOrThrow([
                set("cities/a1", ["state": long("a"), "pop": .integer(1)]),
                set("cities/a3", ["state": long("a"), "pop": .integer(3)]),
                set("cities/b2", ["state": long("b"), "pop": .integer(2)]),
                set("cities/b9", ["state": long("b"), "pop": .integer(9)]),
            ])
            let byPop = [QueryOrder(field: field("pop"), descending: true)]
            #expect(try ids(store, cities(filter("state", .equal, long("a")), orderBy: byPop)) == ["a3", "a1"])
            #expect(try ids(store, cities(filter("state", .equal, long("b")), orderBy: byPop)) == ["b9", "b2"])
            #expect(
                try ids(
                    store,
                    cities(
                        filter("state", .equal, long("b")), orderBy: byPop,
                        startAt: QueryCursor(values: [.integer(5)], before: false)))
                    == ["b2"])
            let counted = try store.runAggregation(
                AggregationQuery(
                    query: cities(filter("state", .equal, long("a")), orderBy: byPop),
                    aggregations: [.init(alias: "n", kind: .count(upTo: nil))]), transaction: nil)
            #expect(counted.values["n"] == .integer(2))
            let everyState = [QueryOrder(field: field("state")), QueryOrder(field: field("pop"), descending: true)]
            #expect(try ids(store, cities(orderBy: everyState)) == ["a3", "a1", "b9", "b2"])
        },
    ]
}
