import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import HearthStorePostgres
import Testing

/// Index-backed queries stay index-backed on PostgreSQL (issue 22): at 100,000 documents, every statement the
/// query engine runs for a range, an equality, an equality with an order (composite index), a whole collection, a
/// collection group (plain and filtered) and their counts is an index scan of the B-tree it was meant for, never a
/// sequential scan — checked with `EXPLAIN` on the statements the queries really ran, with their parameters.
@Suite("PostgreSQL query plans", TestCluster.requirement)
struct PostgresQueryPlanTests {
    private static let itemCount = 80_000
    private static let partCount = 20_000

    @Test func everyScanOfEveryQueryShapeIsAnIndexScanAtOneHundredThousandDocuments() async throws {
        let info = try TestCluster.freshDatabase()
        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configuration.indexes = [
            IndexDefinition(
                collectionID: "items", scope: .collection,
                fields: [
                    .init(path: FieldPath(segments: ["g"]), mode: .ascending),
                    .init(path: FieldPath(segments: ["n"]), mode: .descending),
                ]),
            IndexDefinition(
                collectionID: "parts", scope: .collectionGroup,
                fields: [.init(path: FieldPath(segments: ["w"]), mode: .ascending)]),
        ]
        let store = try PostgresDocumentStore(configuration: configuration)
        defer { store.close() }
        try await DocumentStoreConformance.waitForIndexes(store)
        // Through the engine's own commit path, 500 writes a commit.
        let writes =
            (0..<Self.itemCount).map { index in
                set(
                    "items/" + Self.id(index),
                    [
                        "n": .integer(Int64(index)), "g": .integer(Int64(index % 100)),
                        "t": .array([.string("a\(index % 10)")]),
                    ])
            }
            + (0..<Self.partCount).map { index in
                set("items/\(Self.id(index))/parts/p", ["w": .integer(Int64(index % 50))])
            }
        for start in stride(from: 0, to: writes.count, by: 500) {
            try await store.commitOrThrow(Array(writes[start..<min(start + 500, writes.count)]))
        }
        let db = try PostgresConnection(conninfo: info)
        defer { db.close() }
        for table in ["documents", "index_entries", "composite_entries"] { try db.query("ANALYZE \(table)") }

        let items = { (filter: QueryFilter?, orderBy: [QueryOrder], limit: Int?) in
            StructuredQuery(parent: .root, collectionID: "items", filter: filter, orderBy: orderBy, limit: limit)
        }
        let n = FieldPath(segments: ["n"])
        let g = FieldPath(segments: ["g"])
        let range = items(
            .and([.field(n, .greaterThanOrEqual, .integer(500)), .field(n, .lessThan, .integer(700))]), [], nil)
        let equality = items(.field(g, .equal, .integer(7)), [], 100)
        let composite = items(.field(g, .equal, .integer(7)), [QueryOrder(field: n, descending: true)], 20)
        let wholeCollection = items(nil, [], 50)
        let group = StructuredQuery(parent: .root, collectionID: "parts", allDescendants: true, limit: 50)
        var filteredGroup = group
        filteredGroup.filter = .field(FieldPath(segments: ["w"]), .equal, .integer(3))

        // The queries answer what they should, so the plans below are of real work.
        #expect(try store.runQuery(range, transaction: nil).documents.count == 200)
        let composed = try store.runQuery(composite, transaction: nil).documents
        #expect(try composed.map { try $0.fields()["n"] } == (0..<20).map { .integer(Int64(79_907 - 100 * $0)) })
        #expect(try store.runQuery(filteredGroup, transaction: nil).documents.count == 50)

        var plans: [PostgresStatementPlan] = []
        for query in [range, equality, composite, wholeCollection, group, filteredGroup] {
            plans += try store.explain(query)
            plans += try store.explain(
                AggregationQuery(query: query, aggregations: [.init(alias: "n", kind: .count(upTo: nil))]))
        }
        let expected = ["index_entries_pkey", "composite_entries_pkey", "documents_pkey", "documents_by_group"]
        // Every kind of statement appeared: each index the scans are meant to use was used.
        for index in expected {
            #expect(plans.contains { $0.plan.contains(" using \(index)") }, "no statement used \(index)")
        }
        for statement in plans {
            let index = Self.expectedIndex(of: statement.sql)
            let scan = [
                "Index Scan using \(index)", "Index Scan Backward using \(index)", "Index Only Scan using \(index)",
                "Index Only Scan Backward using \(index)",
            ]
            #expect(scan.contains { statement.plan.contains($0) }, "\(statement)")
            #expect(!statement.plan.contains("Seq Scan"), "\(statement)")
            #expect(!statement.plan.contains("Sort"), "ordered by its index, so never sorted: \(statement)")
        }
    }

    /// The B-tree a statement should be answered from, by the table and columns it selects on.
    private static func expectedIndex(of sql: String) -> String {
        if sql.contains("FROM index_entries") { return "index_entries_pkey" }
        if sql.contains("FROM composite_entries") { return "composite_entries_pkey" }
        if sql.contains("collection_id =") { return "documents_by_group" }
        return "documents_pkey"
    }

    /// Zero-padded IDs, so ID order is number order.
    private static func id(_ index: Int) -> String {
        let digits = String(index)
        return "i" + String(repeating: "0", count: 6 - digits.count) + digits
    }
}
