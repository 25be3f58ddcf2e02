import HearthCore
import HearthStore
import Testing

extension DocumentStoreConformance {
    /// Collection groups, declared composite indexes (and the refusal without one), and aggregations.
    static let queryIndexChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("collection-group queries read every collection with the ID, or one parent's subtree") {
            store in
            try await seedCities(store)
            let all = StructuredQuery(parent: .root, collectionID: "landmarks", allDescendants: true)
            #expect(
                try paths(store, all) == [
                    "cities/ny/landmarks/bb", "cities/ny/landmarks/moma", "cities/sf/landmarks/gg",
                    "countries/us/landmarks/gw", "countries/us/landmarks/liberty",
                ])
            var below = all
            below.parent = path("cities/ny")
            #expect(try ids(store, below) == ["bb", "moma"])
            var bridges = all
            bridges.filter = filter("type", .equal, .string("bridge"))
            #expect(try ids(store, bridges) == ["bb", "gg", "gw"])
            bridges.parent = path("countries/us")
            #expect(try ids(store, bridges) == ["gw"])
        },
        ConformanceCheck("a declared composite index serves an equality with an order on another field") { store in
            try await seedCities(store)
            let byPopDown = [QueryOrder(field: field("pop"), descending: true)]
            let california = cities(filter("state", .equal, .string("CA")), orderBy: byPopDown)
            #expect(try ids(store, california) == ["la", "sf"])
            var after = california
            after.startAt = QueryCursor(values: [.integer(3_900_000)], before: false)
            #expect(try ids(store, after) == ["sf"])
            let coastal = cities(
                filter("tags", .arrayContains, .string("coast")), orderBy: [QueryOrder(field: field("pop"))])
            #expect(try ids(store, coastal) == ["sf", "la", "ny"])
            var firstCoastal = coastal
            firstCoastal.limit = 1
            #expect(try ids(store, firstCoastal) == ["sf"])
        },
        ConformanceCheck("a query needing an undeclared composite index fails with FAILED_PRECONDITION") { store in
            try await seedCities(store)
            let query = cities(filter("state", .equal, .string("CA")), orderBy: [QueryOrder(field: field("name"))])
            let error = #expect(throws: HearthError.self) { try store.runQuery(query, transaction: nil) }
            #expect(error?.code == .failedPrecondition)
            #expect(error?.message.contains("index") == true)
            let aggregation = AggregationQuery(
                query: query, aggregations: [.init(alias: "n", kind: .count(upTo: nil))])
            let refused = #expect(throws: HearthError.self) { try store.runAggregation(aggregation, transaction: nil) }
            #expect(refused?.code == .failedPrecondition)
        },
        ConformanceCheck("count, sum and avg aggregations, with filters and count's upTo") { store in
            try await seedCities(store)
            func aggregate(_ query: StructuredQuery, _ kinds: [String: AggregationQuery.Kind]) throws -> [String: Value]
            {
                let aggregations = kinds.sorted { $0.key < $1.key }.map {
                    AggregationQuery.Aggregation(alias: $0, kind: $1)
                }
                let results = try store.runAggregation(
                    AggregationQuery(query: query, aggregations: aggregations), transaction: nil)
                return results.values
            }
            #expect(try aggregate(cities(), ["n": .count(upTo: nil)]) == ["n": .integer(6)])
            #expect(try aggregate(cities(), ["n": .count(upTo: 3)]) == ["n": .integer(3)])
            #expect(
                try aggregate(cities(filter("state", .equal, .string("CA"))), ["n": .count(upTo: nil)])
                    == ["n": .integer(2)])
            #expect(
                try aggregate(cities(filter("pop", .greaterThan, .integer(1_000_000))), ["n": .count(upTo: nil)])
                    == ["n": .integer(3)])
            let landmarks = StructuredQuery(parent: .root, collectionID: "landmarks", allDescendants: true)
            #expect(try aggregate(landmarks, ["n": .count(upTo: nil)]) == ["n": .integer(5)])
            // Sum and average take only the documents holding the field; count beside them too.
            let totals = try aggregate(
                cities(), ["n": .count(upTo: nil), "total": .sum(field("pop")), "mean": .average(field("pop"))])
            #expect(totals["n"] == .integer(5))
            #expect(totals["total"] == .integer(16_820_000))
            #expect(totals["mean"] == .double(3_364_000))
            let california = try aggregate(
                cities(filter("state", .equal, .string("CA"))), ["mean": .average(field("pop"))])
            #expect(california["mean"] == .double(2_380_000))
            let none = try aggregate(
                cities(filter("state", .equal, .string("WA"))),
                ["n": .count(upTo: nil), "total": .sum(field("pop")), "mean": .average(field("pop"))])
            #expect(none == ["n": .integer(0), "total": .integer(0), "mean": .null])
        },
    ]
}
