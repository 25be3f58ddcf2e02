package import HearthCore

/// Checks, inside the commit's write transaction, that nothing a read-write transaction read has changed:
/// each document still has the update time it had (or is still missing), and each query still returns the
/// same documents at the same versions. Otherwise the commit fails with `ABORTED` and nothing is written.
package enum ReadSetValidator {
    /// The answer to a commit whose reads changed under it.
    package static let conflict = HearthError(
        .aborted, "Transaction aborted: data it read was changed by another commit. Retry the transaction.")

    /// Throws ``conflict`` when anything in `reads` changed, read through `scanner` (the commit's own view).
    package static func validate(
        _ reads: TransactionReadSet, catalog: IndexCatalog, in scanner: any IndexScanner
    ) throws {
        for (path, updateTime) in reads.documents {
            let current = try scanner.document(at: path)
            if current?.updateTime != updateTime { throw conflict }
        }
        for (query, results) in reads.queries {
            let rerun = try QueryRunner.run(query, catalog: catalog, in: scanner).documents
            guard rerun.count == results.count else { throw conflict }
            for document in rerun where results[document.path] != document.updateTime { throw conflict }
        }
    }
}
