import HearthCore
import HearthSQLite
import HearthStore

/// Checks, inside the commit's write transaction, that nothing a read-write transaction read has changed:
/// each document still has the update time it had (or is still missing), and each query still returns the
/// same documents at the same versions. Otherwise the commit fails with `ABORTED` and nothing is written.
enum ReadSetValidator {
    static let conflict = HearthError(
        .aborted, "Transaction aborted: data it read was changed by another commit. Retry the transaction.")

    static func validate(_ reads: TransactionRegistry.ReadSet, catalog: IndexCatalog, in db: SQLiteConnection) throws {
        for (path, updateTime) in reads.documents {
            let current = try DocumentRows.fetch(path, in: db)
            if current?.updateTime != updateTime { throw conflict }
        }
        for (query, results) in reads.queries {
            let rerun = try QueryRunner.run(query, catalog: catalog, in: db).documents
            guard rerun.count == results.count else { throw conflict }
            for document in rerun where results[document.path] != document.updateTime { throw conflict }
        }
    }
}
