import HearthCore
import HearthStore
import Testing

extension DocumentStoreConformance {
    /// Filters: every operator, alone and combined with AND and OR, over the single-field indexes.
    static let queryChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("an unfiltered query returns the collection's documents by ID, and no other collection's") {
            store in
            try await seedCities(store)
            #expect(try ids(store, cities()) == ["aus", "chi", "ghost", "la", "ny", "sf"])
        },
        ConformanceCheck("equality filters match by value, several merged by document ID") { store in
            try await seedCities(store)
            #expect(try ids(store, cities(filter("state", .equal, .string("CA")))) == ["la", "sf"])
            let both = QueryFilter.and([
                filter("state", .equal, .string("CA")), filter("pop", .equal, .integer(860_000)),
            ])
            #expect(try ids(store, cities(both)) == ["sf"])
            #expect(try ids(store, cities(filter("state", .equal, .string("WA")))) == [])
        },
        ConformanceCheck("range filters return matches in the field's order, within the value's type") { store in
            try await seedCities(store)
            #expect(
                try ids(store, cities(filter("pop", .greaterThan, .integer(900_000)))) == ["aus", "chi", "la", "ny"])
            let between = QueryFilter.and([
                filter("pop", .greaterThanOrEqual, .integer(960_000)), filter("pop", .lessThan, .integer(3_900_000)),
            ])
            #expect(try ids(store, cities(between)) == ["aus", "chi"])
            #expect(try ids(store, cities(filter("pop", .lessThanOrEqual, .double(960_000)))) == ["sf", "aus"])
            // A string bound never matches numbers.
            #expect(try ids(store, cities(filter("pop", .greaterThan, .string("")))) == [])
        },
        ConformanceCheck("in, not-in and != filters") { store in
            try await seedCities(store)
            #expect(try ids(store, cities(filter("state", .in, strings("CA", "TX")))) == ["aus", "la", "sf"])
            // Documents without the field never match an inequality; matches come in the field's order.
            #expect(try ids(store, cities(filter("state", .notEqual, .string("CA")))) == ["chi", "ny", "aus"])
            #expect(try ids(store, cities(filter("state", .notIn, strings("CA", "TX")))) == ["chi", "ny"])
        },
        ConformanceCheck("array-contains and array-contains-any filters") { store in
            try await seedCities(store)
            #expect(try ids(store, cities(filter("tags", .arrayContains, .string("tech")))) == ["aus", "sf"])
            #expect(
                try ids(store, cities(filter("tags", .arrayContainsAny, strings("east", "midwest", "nowhere"))))
                    == ["chi", "ny"])
        },
        ConformanceCheck("OR filters merge their branches once each, and AND inside OR") { store in
            try await seedCities(store)
            let either = QueryFilter.or([
                filter("state", .equal, .string("NY")), filter("tags", .arrayContains, .string("tech")),
            ])
            #expect(try ids(store, cities(either)) == ["aus", "ny", "sf"])
            let overlapping = QueryFilter.or([
                filter("state", .equal, .string("CA")), filter("tags", .arrayContains, .string("west")),
            ])
            #expect(try ids(store, cities(overlapping)) == ["la", "sf"])
            let nested = QueryFilter.or([
                .and([filter("state", .equal, .string("CA")), filter("pop", .equal, .integer(3_900_000))]),
                filter("state", .equal, .string("IL")),
            ])
            #expect(try ids(store, cities(nested)) == ["chi", "la"])
        },
        ConformanceCheck("queries see every commit: updated and deleted documents move and leave the indexes") {
            store in
            try await seedCities(store)
            try await store.commitOrThrow([
                set("cities/la", ["state": .string("NV"), "pop": .integer(100), "tags": strings("desert")]),
                Write(path: path("cities/ny"), operation: .delete),
                Write(path: path("cities/sf/landmarks/gg"), operation: .delete),
            ])
            #expect(try ids(store, cities(filter("state", .equal, .string("CA")))) == ["sf"])
            #expect(try ids(store, cities(filter("pop", .lessThan, .integer(1_000_000)))) == ["la", "sf", "aus"])
            #expect(try ids(store, cities(filter("tags", .arrayContains, .string("coast")))) == ["sf"])
            let composite = cities(
                filter("state", .equal, .string("CA")), orderBy: [QueryOrder(field: field("pop"), descending: true)])
            #expect(try ids(store, composite) == ["sf"])
            let bridges = StructuredQuery(
                parent: .root, collectionID: "landmarks", allDescendants: true,
                filter: filter("type", .equal, .string("bridge")))
            #expect(try ids(store, bridges) == ["bb", "gw"])
            #expect(try ids(store, cities()) == ["aus", "chi", "ghost", "la", "sf"])
            // Exact counts come from the index entries alone: a stale entry would be counted.
            func count(_ query: StructuredQuery) throws -> Value? {
                let aggregation = AggregationQuery(
                    query: query, aggregations: [.init(alias: "n", kind: .count(upTo: nil))])
                let results = try store.runAggregation(aggregation, transaction: nil)
                return results.values["n"]
            }
            #expect(try count(cities(filter("state", .equal, .string("CA")))) == .integer(1))
            #expect(try count(cities(filter("pop", .greaterThan, .integer(1_000_000)))) == .integer(1))
            #expect(try count(cities(filter("tags", .arrayContains, .string("coast")))) == .integer(1))
            #expect(try count(cities()) == .integer(5))
            #expect(
                try count(StructuredQuery(parent: .root, collectionID: "landmarks", allDescendants: true))
                    == .integer(4))
        },
        ConformanceCheck("several writes to one document in one commit leave exactly its last version indexed") {
            store in
            try await store.commitOrThrow([set("c/kept", ["a": .integer(1)])])
            try await store.commitOrThrow([
                set("c/x", ["a": .integer(1)]), set("c/x", ["a": .integer(2)]), set("c/x", ["a": .integer(1)]),
                set("c/gone", ["a": .integer(1)]), Write(path: path("c/gone"), operation: .delete),
                set("c/kept", ["a": .integer(2)]), set("c/kept", ["a": .integer(1)]),
                Write(path: path("c/back"), operation: .delete), set("c/back", ["a": .integer(2)]),
            ])
            func count(_ value: Int64) throws -> Value? {
                let query = StructuredQuery(
                    parent: .root, collectionID: "c", filter: filter("a", .equal, .integer(value)))
                let results = try store.runAggregation(
                    AggregationQuery(query: query, aggregations: [.init(alias: "n", kind: .count(upTo: nil))]),
                    transaction: nil)
                return results.values["n"]
            }
            #expect(try count(1) == .integer(2))
            #expect(try count(2) == .integer(1))
            let ones = StructuredQuery(parent: .root, collectionID: "c", filter: filter("a", .equal, .integer(1)))
            #expect(try ids(store, ones) == ["kept", "x"])
            // A later write of the commit works on what the earlier one left: a transform, a precondition.
            let increment = Write(
                path: path("c/t"), operation: .transform,
                transforms: [FieldTransform(fieldPath: field("a"), kind: .increment(.integer(1)))])
            let mustExist = Write(
                path: path("c/t"), operation: .update(fields: ["b": .integer(1)], mask: [field("b")]),
                precondition: .exists(true))
            try await store.commitOrThrow([set("c/t", ["a": .integer(1)]), increment, mustExist])
            #expect(try store.document(at: path("c/t"))?.fields() == ["a": .integer(2), "b": .integer(1)])
            #expect(try count(2) == .integer(2))
            let log = try store.changes(after: 0, limit: 100).filter { $0.path == path("c/t") }
            #expect(log.count == 3)
            for (previous, next) in zip(log, log.dropFirst()) { #expect(next.before == previous.after) }
        },
        ConformanceCheck("after the wipe no query or count finds a document, and new ones are indexed afresh") {
            store in
            try await seedCities(store)
            _ = try await store.deleteAllDocuments()
            let count = AggregationQuery(
                query: cities(filter("state", .equal, .string("CA"))),
                aggregations: [.init(alias: "n", kind: .count(upTo: nil))])
            #expect(try store.runAggregation(count, transaction: nil).values["n"] == .integer(0))
            let composite = cities(
                filter("state", .equal, .string("CA")), orderBy: [QueryOrder(field: field("pop"), descending: true)])
            #expect(try ids(store, composite) == [])
            try await store.commitOrThrow([set("cities/new", ["state": .string("CA"), "pop": .integer(1)])])
            #expect(try ids(store, composite) == ["new"])
            #expect(try store.runAggregation(count, transaction: nil).values["n"] == .integer(1))
        },
    ]
}
