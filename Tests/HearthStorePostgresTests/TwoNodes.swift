import HearthPostgresTestSupport
import HearthStorePostgres

/// Two document engines on one fresh database of the shared cluster — two Hearth nodes serving one project —
/// closed together by ``close()``.
struct TwoNodes {
    let first: PostgresDocumentStore
    let second: PostgresDocumentStore
    /// The conninfo of their database.
    let info: String

    init() throws {
        let info = try TestCluster.freshDatabase()
        self.info = info
        first = try PostgresDocumentStore(configuration: .init(conninfo: info))
        second = try PostgresDocumentStore(configuration: .init(conninfo: info))
    }

    /// Closes both.
    func close() {
        first.close()
        second.close()
    }
}
