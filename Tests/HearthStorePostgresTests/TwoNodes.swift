import HearthPostgresTestSupport
import HearthStorePostgres

/// Two document engines on one fresh database of the shared cluster — two Hearth nodes serving one project —
/// closed together by ``close()``.
struct TwoNodes {
    let first: PostgresDocumentStore
    let second: PostgresDocumentStore
    /// The conninfo of their database.
    let info: String

    /// Two nodes on a fresh database, both with the settings `configure` leaves.
    init(_ configure: (inout PostgresDocumentStore.Configuration) -> Void = { _ in }) throws {
        let info = try TestCluster.freshDatabase()
        self.info = info
        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configure(&configuration)
        first = try PostgresDocumentStore(configuration: configuration)
        second = try PostgresDocumentStore(configuration: configuration)
    }

    /// Closes both.
    func close() {
        first.close()
        second.close()
    }
}
