import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStorePostgres
import Synchronization
import Testing

/// Deployed rules in the database two nodes share: what one keeps the other reads, and hears of by itself.
@Suite("PostgreSQL deployed rules", TestCluster.requirement)
struct PostgresRulesStorageTests {
    @Test func whatOneNodeKeepsTheOtherReadsAndIsToldOf() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let first = PostgresRulesStorage(store: nodes.first)
        // A poll far longer than the test's deadline: only the notification can bring the change in time.
        let second = PostgresRulesStorage(store: nodes.second, pollInterval: .seconds(3600))
        #expect(try second.deployedSources().isEmpty)
        let heard = Mutex<[[DeployedRulesKind: String]]>([])
        second.watch { sources in heard.withLock { $0.append(sources) } }
        defer { second.stopWatching() }

        try first.keep("document rules", as: .firestore)
        try first.keep("tree rules", as: .tree("chat"))
        try first.keep("newer document rules", as: .firestore)
        let wanted: [DeployedRulesKind: String] = [.firestore: "newer document rules", .tree("chat"): "tree rules"]
        let deadline = ContinuousClock.now + .seconds(60)
        while heard.withLock({ $0.last }) != wanted, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(heard.withLock { $0.last } == wanted)
        #expect(try second.deployedSources() == wanted)
        #expect(second.location(of: .tree("chat")).contains("chat"))
    }

    @Test func rulesFromADataDirectoryNeverReplaceDeployedOnes() throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let first = PostgresRulesStorage(store: nodes.first)
        let second = PostgresRulesStorage(store: nodes.second)
        #expect(try first.keepUnlessDeployed("from a data directory", as: .storage))
        try first.keep("deployed", as: .storage)
        #expect(try second.keepUnlessDeployed("from another data directory", as: .storage) == false)
        #expect(try second.deployedSources() == [.storage: "deployed"])
    }

    @Test func aKindANewerHearthWroteIsLeftOut() throws {
        let info = try TestCluster.freshDatabase()
        let store = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { store.close() }
        let storage = PostgresRulesStorage(store: store)
        try storage.keep("document rules", as: .firestoreDatabase("audit"))
        let db = try PostgresConnection(conninfo: info)
        defer { db.close() }
        try db.query("INSERT INTO deployed_rules(kind, id, source, version) VALUES ('functions', '', 'x', 99)")
        #expect(try storage.deployedSources() == [.firestoreDatabase("audit"): "document rules"])
    }
}
