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
        try validateDocuments(reads, read: scanner.document(at:))
        try validateQueries(reads, catalog: catalog, in: scanner)
    }

    /// Throws ``conflict`` when a document in `reads` changed, each read by `read` — the commit's own view, which
    /// an engine whose commits run side by side reads under the locks that keep it so until the commit ends.
    package static func validateDocuments(
        _ reads: TransactionReadSet, read: (ResourcePath) throws -> StoredDocument?
    ) throws {
        // In path order, so that an engine locking rows as it reads them takes its locks in one order.
        for (path, updateTime) in reads.documents.sorted(by: { $0.key.description < $1.key.description }) {
            let current = try read(path)
            if current?.updateTime != updateTime { throw conflict }
        }
    }

    /// Throws ``conflict`` when a query in `reads` returns other documents or versions now.
    package static func validateQueries(
        _ reads: TransactionReadSet, catalog: IndexCatalog, in scanner: any IndexScanner
    ) throws {
        for (query, results) in reads.queries {
            let rerun = try QueryRunner.run(query, catalog: catalog, in: scanner).documents
            guard rerun.count == results.count else { throw conflict }
            for document in rerun where results[document.path] != document.updateTime { throw conflict }
        }
    }
}
