import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import HearthStorePostgres
import Testing

/// The PostgreSQL engine against a throwaway cluster: the engine-independent suite SQLite runs too, then what is
/// PostgreSQL's own (migrations, several engines on one database, a restarting server, what it refuses so far).
@Suite("PostgreSQL document engine", TestCluster.requirement)
struct PostgresDocumentStoreTests {
    /// A store on a new database of the shared cluster.
    private func makeStore() throws -> PostgresDocumentStore {
        try PostgresDocumentStore(configuration: .init(conninfo: try TestCluster.freshDatabase()))
    }

    @Test(arguments: DocumentStoreConformance.checks)
    func conformsToTheDocumentStoreSuite(_ check: DocumentConformanceCheck) async throws {
        try await check.run { body in
            var configuration = PostgresDocumentStore.Configuration(conninfo: try TestCluster.freshDatabase())
            configuration.indexes = DocumentStoreConformance.indexes
            let store = try PostgresDocumentStore(configuration: configuration)
            defer { store.close() }
            try await body(store)
        }
    }

    @Test func migrationsRunOnceEvenWhenSeveralNodesOpenTheDatabaseTogether() async throws {
        let info = try TestCluster.freshDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresDocumentStore.self) { group in
            for _ in 0..<4 {
                group.addTask { try PostgresDocumentStore(configuration: .init(conninfo: info)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { for store in stores { store.close() } }
        #expect(
            try stores[0].schemaVersions() == [
                1, 20, 21, 22, 23, 26, 30, 31, 32, 33, 34, 40, 41, 42, 43, 44, 45, 46, 47, 48,
            ])
        // Reopening migrates nothing and keeps the data.
        try await stores[0].commitOrThrow([set("c/a", ["v": .integer(1)])])
        let reopened = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { reopened.close() }
        #expect(
            try reopened.schemaVersions() == [
                1, 20, 21, 22, 23, 26, 30, 31, 32, 33, 34, 40, 41, 42, 43, 44, 45, 46, 47, 48,
            ])
        #expect(try reopened.document(at: path("c/a"))?.fields() == ["v": .integer(1)])
    }

    @Test func aSchemaFromANewerHearthIsRefused() throws {
        let info = try TestCluster.freshDatabase()
        try PostgresDocumentStore(configuration: .init(conninfo: info)).close()
        try PostgresConnection(conninfo: info).query("INSERT INTO schema_migrations(version) VALUES (999)")
        let error = #expect(throws: HearthError.self) {
            try PostgresDocumentStore(configuration: .init(conninfo: info))
        }
        #expect(error?.code == .failedPrecondition)
    }

    @Test func twoEnginesOnOneDatabaseShareCommitOrder() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let (first, second) = (nodes.first, nodes.second)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                let store = index % 2 == 0 ? first : second
                group.addTask {
                    let increment = Write(
                        path: path("c/counter"), operation: .transform,
                        transforms: [
                            FieldTransform(fieldPath: FieldPath(segments: ["n"]), kind: .increment(.integer(1)))
                        ])
                    _ = await store.commit([increment])
                }
            }
        }
        // No lost update across the two, and one log in commit order: sequences 1…30, times increasing, each
        // change's before the previous one's after.
        #expect(try first.document(at: path("c/counter"))?.fields()["n"] == .integer(30))
        let log = try second.changes(after: 0, limit: 100)
        #expect(log.map(\.sequence) == Array(1...30))
        #expect(log.map(\.commitTime) == log.map(\.commitTime).sorted())
        for (previous, next) in zip(log, log.dropFirst()) { #expect(next.before == previous.after) }
        #expect(try first.head() == 30)
    }

    @Test func afterTheServerRestartsTheEngineReconnectsByItself() async throws {
        let cluster = try TestCluster()
        defer { cluster.stop() }
        let store = try PostgresDocumentStore(configuration: .init(conninfo: try cluster.createDatabase()))
        defer { store.close() }
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
        #expect(try store.document(at: path("c/a")) != nil)

        try cluster.restart()

        try await store.commitOrThrow([set("c/b", ["v": .integer(2)])])
        #expect(try store.documents(at: [path("c/a"), path("c/b")]).map { $0 != nil } == [true, true])
        #expect(try store.head() == 2)
    }

    @Test func anUnreachableServerIsUnavailable() async throws {
        let cluster = try TestCluster()
        let store = try PostgresDocumentStore(configuration: .init(conninfo: try cluster.createDatabase()))
        defer { store.close() }
        cluster.stop()
        #expect(await store.commit([set("c/a", [:])]).failure?.code == .unavailable)
        let error = #expect(throws: HearthError.self) { try store.document(at: path("c/a")) }
        #expect(error?.code == .unavailable)
    }

    @Test func aDocumentIDWithANulCharacterIsRefusedAndNeverStoredUnderAnother() async throws {
        let store = try makeStore()
        defer { store.close() }
        let result = await store.commit([
            set("c/kept", [:]), Write(path: path("c/a\u{0}b"), operation: .update(fields: [:], mask: nil)),
        ])
        #expect(result.failure?.code == .invalidArgument)
        #expect(try store.documents(at: [path("c/kept"), path("c/a")]) == [nil, nil])
    }
}
