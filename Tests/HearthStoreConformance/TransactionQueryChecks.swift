import HearthCore
import HearthStore
import Testing

extension DocumentStoreConformance {
    /// Queries and aggregations inside transactions: a read-only one's see its snapshot; a read-write one's are part
    /// of its read set, so a commit after another commit changed what they return aborts, and one after unrelated
    /// commits goes through.
    static let transactionQueryChecks: [TransactionConformanceCheck] = [
        ConformanceCheck("a read-only transaction's queries and aggregations see its snapshot") { engine in
            let store = engine.store
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
            let transaction = try store.beginTransaction(.readOnly, caller: nil)
            try await store.commitOrThrow([set("c/a", ["v": .integer(2)]), set("c/b", ["v": .integer(5)])])
            let query = StructuredQuery(parent: .root, collectionID: "c")
            let seen = try store.runQuery(query, transaction: transaction).documents
            #expect(try seen.map { try $0.fields() } == [["v": .integer(1)]])
            #expect(try store.runQuery(query, transaction: nil).documents.count == 2)
            let total = AggregationQuery(
                query: query,
                aggregations: [.init(alias: "n", kind: .count(upTo: nil)), .init(alias: "s", kind: .sum(field("v")))])
            #expect(
                try store.runAggregation(total, transaction: transaction).values == [
                    "n": .integer(1), "s": .integer(1),
                ])
            #expect(try store.runAggregation(total, transaction: nil).values == ["n": .integer(2), "s": .integer(7)])
            try store.rollback(transaction)
            #expect(throws: HearthError.self) { try store.runQuery(query, transaction: transaction) }
        },
        ConformanceCheck("a document a transaction's query now matches aborts its commit") { engine in
            let store = engine.store
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)]), set("c/low", ["v": .integer(0)])])
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            let query = StructuredQuery(
                parent: .root, collectionID: "c", filter: filter("v", .greaterThanOrEqual, .integer(1)))
            #expect(try store.runQuery(query, transaction: transaction).documents.map(\.path.lastSegment) == ["a"])
            try await store.commitOrThrow([set("c/low", ["v": .integer(4)])])
            let result = await store.commit([set("c/a", ["v": .integer(3)])], transaction: transaction)
            #expect(result.failure == ReadSetValidator.conflict)
            #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(1)])
        },
        ConformanceCheck("a changed or deleted query result aborts the commit; writes it does not see do not") {
            engine in
            let store = engine.store
            try await store.commitOrThrow([
                set("c/a", ["v": .integer(1)]), set("c/b", ["v": .integer(2)]), set("c/c", ["v": .integer(3)]),
            ])
            // Ordered, limited and started at a cursor, as clients' transactions query (and as a ledger must keep).
            let query = StructuredQuery(
                parent: .root, collectionID: "c", filter: filter("v", .greaterThan, .integer(0)),
                orderBy: [QueryOrder(field: field("v"), descending: true)],
                startAt: QueryCursor(values: [.integer(2)], before: true), limit: 1)
            let unchanged = try store.beginTransaction(.readWrite, caller: nil)
            #expect(try store.runQuery(query, transaction: unchanged).documents.map(\.path.lastSegment) == ["b"])
            // Outside what the query returns: a document past its limit, another out of its filter.
            try await store.commitOrThrow([
                set("c/a", ["v": .integer(1), "x": .boolean(true)]), set("c/z", ["v": .integer(-1)]),
            ])
            try await store.commitOrThrow([set("c/out", ["w": .integer(1)])], transaction: unchanged)
            #expect(try store.document(at: path("c/out")) != nil)

            let changed = try store.beginTransaction(.readWrite, caller: nil)
            #expect(try store.runQuery(query, transaction: changed).documents.map(\.path.lastSegment) == ["b"])
            try await store.commitOrThrow([set("c/b", ["v": .integer(2), "x": .boolean(true)])])
            #expect(await store.commit([set("c/new", [:])], transaction: changed).failure == ReadSetValidator.conflict)

            let deleted = try store.beginTransaction(.readWrite, caller: nil)
            #expect(try store.runQuery(query, transaction: deleted).documents.map(\.path.lastSegment) == ["b"])
            try await store.commitOrThrow([Write(path: path("c/b"), operation: .delete)])
            #expect(await store.commit([set("c/new", [:])], transaction: deleted).failure == ReadSetValidator.conflict)
            #expect(try store.document(at: path("c/new")) == nil)
        },
        ConformanceCheck("a read-write transaction's count aborts its commit when the documents counted change") {
            engine in
            let store = engine.store
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)]), set("c/b", ["v": .integer(2)])])
            let count = AggregationQuery(
                query: StructuredQuery(parent: .root, collectionID: "c", filter: filter("v", .lessThan, .integer(10))),
                aggregations: [.init(alias: "n", kind: .count(upTo: nil))])
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            #expect(try store.runAggregation(count, transaction: transaction).values == ["n": .integer(2)])
            try await store.commitOrThrow([set("c/c", ["v": .integer(3)])])
            #expect(
                await store.commit([set("c/total", ["n": .integer(2)])], transaction: transaction).failure?.code
                    == .aborted)
            #expect(try store.document(at: path("c/total")) == nil)

            let again = try store.beginTransaction(.readWrite, caller: nil)
            #expect(try store.runAggregation(count, transaction: again).values == ["n": .integer(3)])
            try await store.commitOrThrow([set("c/d", ["v": .integer(30)])])  // not counted
            try await store.commitOrThrow([set("c/total", ["n": .integer(3)])], transaction: again)
            #expect(try store.document(at: path("c/total"))?.fields() == ["n": .integer(3)])
        },
    ]
}
