import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import HearthStorePostgres
import Synchronization
import Testing

/// What the PostgreSQL engine does for index entries beyond the shared suite: composite indexes declared over
/// existing documents are built in steps, and documents stored before the index-entry migration get their entries
/// when the engine starts.
@Suite("PostgreSQL index builds", TestCluster.requirement)
struct PostgresIndexBuildTests {
    private static let byStateThenPop = IndexDefinition(
        collectionID: "c", scope: .collection,
        fields: [
            .init(path: FieldPath(segments: ["state"]), mode: .ascending),
            .init(path: FieldPath(segments: ["pop"]), mode: .descending),
        ])

    private static func california() -> StructuredQuery {
        StructuredQuery(
            parent: .root, collectionID: "c", filter: .field(FieldPath(segments: ["state"]), .equal, .string("CA")),
            orderBy: [QueryOrder(field: FieldPath(segments: ["pop"]), descending: true)])
    }

    private static func seed(_ store: PostgresDocumentStore) async throws {
        var writes: [Write] = []
        for index in 0..<25 {
            writes.append(
                set(
                    "c/d\(index)",
                    ["state": .string(index % 2 == 0 ? "CA" : "NY"), "pop": .integer(Int64(index)), "k": .integer(1)]))
        }
        try await store.commitOrThrow(writes)
    }

    @Test func anIndexDeclaredOverExistingDocumentsIsBuiltInStepsThenServesQueries() async throws {
        let info = try TestCluster.freshDatabase()
        let first = try PostgresDocumentStore(configuration: .init(conninfo: info))
        try await Self.seed(first)
        #expect(throws: HearthError.self) { try first.runQuery(Self.california(), transaction: nil) }
        first.close()

        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configuration.indexes = [Self.byStateThenPop]
        configuration.indexBuildStepDocuments = 4
        let store = try PostgresDocumentStore(configuration: configuration)
        defer { store.close() }
        try await DocumentStoreConformance.waitForIndexes(store)
        let status = try #require(store.indexStatuses().first)
        #expect(status.ready && status.completedDocuments == 25 && status.estimatedDocuments == 25)
        let ids = try store.runQuery(Self.california(), transaction: nil).documents.map(\.path.lastSegment)
        #expect(ids == stride(from: 24, through: 0, by: -2).map { "d\($0)" })

        // Reopened, the index is ready at once and nothing is built twice.
        store.close()
        let reopened = try PostgresDocumentStore(configuration: configuration)
        defer { reopened.close() }
        #expect(reopened.indexStatuses().map(\.ready) == [true])
        #expect(try reopened.runQuery(Self.california(), transaction: nil).documents.count == 13)
        let entries = try PostgresConnection(conninfo: info).query("SELECT count(*) FROM composite_entries")
        #expect(try entries[0].int(0) == 25)
    }

    @Test func anIndexNoLongerDeclaredIsDroppedWithItsEntries() async throws {
        let info = try TestCluster.freshDatabase()
        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configuration.indexes = [Self.byStateThenPop]
        let store = try PostgresDocumentStore(configuration: configuration)
        try await DocumentStoreConformance.waitForIndexes(store)
        try await Self.seed(store)
        #expect(try store.runQuery(Self.california(), transaction: nil).documents.count == 13)
        store.close()

        let undeclared = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { undeclared.close() }
        #expect(undeclared.indexStatuses().isEmpty)
        let error = #expect(throws: HearthError.self) { try undeclared.runQuery(Self.california(), transaction: nil) }
        #expect(error?.code == .failedPrecondition)
        let entries = try PostgresConnection(conninfo: info).query("SELECT count(*) FROM composite_entries")
        #expect(try entries[0].int(0) == 0)
    }

    @Test func anIndexAnotherNodeDeclaredIsMaintainedAndUsedByANodeStartedBefore() async throws {
        let info = try TestCluster.freshDatabase()
        let older = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { older.close() }
        try await Self.seed(older)
        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configuration.indexes = [Self.byStateThenPop]
        let newer = try PostgresDocumentStore(configuration: configuration)
        defer { newer.close() }
        try await DocumentStoreConformance.waitForIndexes(newer)

        // The older node learns of the index at its next commit and writes its entries; then it serves the query.
        try await older.commitOrThrow([
            set("c/late", ["state": .string("CA"), "pop": .integer(100)]),
            Write(path: path("c/d24"), operation: .delete),
        ])
        let expected = ["late"] + stride(from: 22, through: 0, by: -2).map { "d\($0)" }
        #expect(try newer.runQuery(Self.california(), transaction: nil).documents.map(\.path.lastSegment) == expected)
        #expect(try older.runQuery(Self.california(), transaction: nil).documents.map(\.path.lastSegment) == expected)
        #expect(older.indexStatuses().map(\.ready) == [true])
    }

    @Test func aNodeThatHasNotCommittedSinceAnIndexWasBuiltElsewhereStillServesIt() async throws {
        let info = try TestCluster.freshDatabase()
        let older = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { older.close() }
        try await Self.seed(older)
        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configuration.indexes = [Self.byStateThenPop]
        let newer = try PostgresDocumentStore(configuration: configuration)
        defer { newer.close() }
        try await DocumentStoreConformance.waitForIndexes(newer)
        #expect(try older.runQuery(Self.california(), transaction: nil).documents.count == 13)
    }

    @Test func aBuildANodeBeganAndLeftIsFinishedByANodeAlreadyRunningAndListedReadyEverywhere() async throws {
        let info = try TestCluster.freshDatabase()
        var inSteps = PostgresDocumentStore.Configuration(conninfo: info)
        inSteps.indexBuildStepDocuments = 4
        let running = try PostgresDocumentStore(configuration: inSteps)
        defer { running.close() }
        let idle = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { idle.close() }
        try await Self.seed(running)
        // What a node that declared the index leaves when it dies before its build's first step: the index stored
        // as building, the catalog's version bumped.
        let db = try PostgresConnection(conninfo: info)
        defer { db.close() }
        try db.query(
            "INSERT INTO composite_indexes(definition, state) VALUES ($1, 'building')",
            [.text(Self.byStateThenPop.description)])
        try db.query("UPDATE index_catalog_version SET version = version + 1 WHERE id = 1")

        // The running node learns of it at its next commit and builds it, step by step, to the end.
        try await running.commitOrThrow([set("c/late", ["state": .string("CA"), "pop": .integer(100)])])
        try await DocumentStoreConformance.waitForIndexes(running)
        #expect(running.indexStatuses().map(\.ready) == [true])
        let expected = ["late"] + stride(from: 24, through: 0, by: -2).map { "d\($0)" }
        #expect(try running.runQuery(Self.california(), transaction: nil).documents.map(\.path.lastSegment) == expected)
        let stored = try db.query("SELECT state, indexed_documents, estimated_documents FROM composite_indexes")
        #expect(try stored[0].string(0) == "ready")
        #expect(try stored[0].int(1) == 26, "every document of the collection indexed once")
        #expect(try stored[0].int(2) == 26)
        // A node that has neither committed nor queried since lists it as ready too.
        #expect(idle.indexStatuses().map(\.ready) == [true])
    }

    @Test func documentsStoredBeforeIndexEntriesExistedAreIndexedAtStart() async throws {
        let info = try TestCluster.freshDatabase()
        let store = try PostgresDocumentStore(configuration: .init(conninfo: info))
        try await Self.seed(store)
        try await store.commitOrThrow([set("c/d3/sub/x", ["k": .integer(1)])])
        store.close()
        // The rows as the first schema stored them: no collection ID, no name key, no entries.
        let db = try PostgresConnection(conninfo: info)
        try db.query("UPDATE documents SET collection_id = NULL, name_key = NULL")
        try db.query("DELETE FROM index_entries")

        let reopened = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { reopened.close() }
        #expect(try db.query("SELECT count(*) FROM documents WHERE name_key IS NULL")[0].int(0) == 0)
        let query = StructuredQuery(
            parent: .root, collectionID: "c", filter: .field(FieldPath(segments: ["pop"]), .lessThan, .integer(3)))
        #expect(try reopened.runQuery(query, transaction: nil).documents.map(\.path.lastSegment) == ["d0", "d1", "d2"])
        let count = AggregationQuery(
            query: StructuredQuery(
                parent: .root, collectionID: "c", filter: .field(FieldPath(segments: ["k"]), .equal, .integer(1))),
            aggregations: [.init(alias: "n", kind: .count(upTo: nil))])
        #expect(try reopened.runAggregation(count, transaction: nil).values["n"] == .integer(25))
        let group = StructuredQuery(parent: .root, collectionID: "sub", allDescendants: true)
        #expect(try reopened.runQuery(group, transaction: nil).documents.map(\.path.description) == ["c/d3/sub/x"])
    }

    @Test func developmentModeAnswersWithoutTheIndexLearnsItAndKeepsItAcrossRestarts() async throws {
        let info = try TestCluster.freshDatabase()
        var development = PostgresDocumentStore.Configuration(conninfo: info)
        development.learnsIndexes = true
        development.indexBuildStepDocuments = 4
        let heard = Mutex<[IndexDefinition]>([])
        development.onIndexLearned = { definition in heard.withLock { $0.append(definition) } }
        let expected = stride(from: 24, through: 0, by: -2).map { "d\($0)" }
        do {
            let store = try PostgresDocumentStore(configuration: development)
            defer { store.close() }
            try await Self.seed(store)
            // Answered at once by a scan, in the order the index would give.
            let scanned = try store.runQuery(Self.california(), transaction: nil)
            #expect(scanned.documents.map(\.path.lastSegment) == expected)
            #expect(scanned.plans.first?.hasPrefix("full scan") == true, "\(scanned.plans)")
            // Learned, declared and built in the background; then the plan uses it.
            var waits = 0
            while store.indexStatuses().map(\.ready) != [true], waits < 3_000 {
                try await Task.sleep(for: .milliseconds(10))
                waits += 1
            }
            #expect(store.indexStatuses().map(\.definition) == [Self.byStateThenPop])
            let indexed = try store.runQuery(Self.california(), transaction: nil)
            #expect(indexed.documents.map(\.path.lastSegment) == expected)
            #expect(indexed.plans.first?.hasPrefix("composite index") == true, "\(indexed.plans)")
            #expect(heard.withLock { $0 } == [Self.byStateThenPop])
            #expect(try store.learnedIndexes() == [Self.byStateThenPop])
        }
        // Another start in development mode declares it again, ready; a production start drops it and refuses.
        do {
            let again = try PostgresDocumentStore(configuration: development)
            defer { again.close() }
            #expect(again.indexStatuses().map(\.ready) == [true])
            #expect(
                try again.runQuery(Self.california(), transaction: nil).documents.map(\.path.lastSegment) == expected)
        }
        let production = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { production.close() }
        #expect(production.indexStatuses().isEmpty)
        let refused = #expect(throws: HearthError.self) { try production.runQuery(Self.california(), transaction: nil) }
        #expect(refused?.code == .failedPrecondition)
        #expect(try production.learnedIndexes() == [Self.byStateThenPop])
        #expect(heard.withLock { $0.count } == 1)
    }

    @Test func anIndexLearnedWhileAnotherNodeCommitsGetsEveryDocumentsEntries() async throws {
        let info = try TestCluster.freshDatabase()
        var development = PostgresDocumentStore.Configuration(conninfo: info)
        development.learnsIndexes = true
        development.indexBuildStepDocuments = 4
        let learner = try PostgresDocumentStore(configuration: development)
        defer { learner.close() }
        let writer = try PostgresDocumentStore(configuration: development)
        defer { writer.close() }
        try await Self.seed(learner)
        // The other node commits all along, before, during and after the index is learned and built.
        let commits = Task {
            for index in 0..<60 {
                try await writer.commitOrThrow([
                    set("c/w\(index)", ["state": .string("CA"), "pop": .integer(Int64(100 + index))])
                ])
            }
        }
        _ = try learner.runQuery(Self.california(), transaction: nil)
        try await commits.value
        var waits = 0
        while learner.indexStatuses().map(\.ready) != [true], waits < 3_000 {
            try await Task.sleep(for: .milliseconds(10))
            waits += 1
        }
        let indexed = try learner.runQuery(Self.california(), transaction: nil)
        #expect(indexed.plans.first?.hasPrefix("composite index") == true, "\(indexed.plans)")
        #expect(indexed.documents.count == 13 + 60)
        // One entry per document, none missed, none doubled.
        let db = try PostgresConnection(conninfo: info)
        defer { db.close() }
        #expect(try db.query("SELECT count(*) FROM composite_entries")[0].int(0) == 25 + 60)
    }
}
