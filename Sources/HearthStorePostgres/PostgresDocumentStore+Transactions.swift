import Foundation
public import HearthCore
internal import HearthPostgres
public import HearthStore

/// Transactions on PostgreSQL, with Firestore's optimistic semantics and SQLite's engine-neutral policy
/// (``TransactionRegistry``, ``ReadSetValidator``), shared by every node of the database:
///
/// - The registry's entries live in PostgreSQL (``PostgresTransactionLedger``), so a transaction begun on one node
///   reads, commits and rolls back on any other.
/// - A read-only transaction pins a snapshot exported by the node that began it (``PostgresSnapshotExporters``);
///   its reads on any node import that snapshot, so they all see the database as it was when it began.
/// - A read-write transaction reads the latest data and records what it read; its commit takes the path locks
///   (``PostgresPathLocks``) of everything it read or writes, then checks the read set against the rows — read
///   `FOR SHARE` — in the same PostgreSQL transaction that applies its writes. Of two nodes committing against the
///   same documents at once, the second waits for the first and then sees its changes: `ABORTED`, never a lost
///   update.
extension PostgresDocumentStore {
    /// Starts a transaction for `caller`; a read-only one pins its snapshot now.
    public func beginTransaction(_ mode: TransactionMode, caller: String?) throws(HearthError) -> TransactionID {
        exporters.closeExpired()
        do {
            return try transactions.begin(mode, caller: caller) { try exporters.export() }
        } catch {
            throw hearthError(error, doing: "beginning a transaction")
        }
    }

    /// Ends a transaction without committing; unknown IDs are an error, as in Firestore.
    public func rollback(_ transaction: TransactionID) throws(HearthError) {
        try transactions.rollback(transaction)
    }

    /// Reads in a transaction: a read-only one reads its snapshot; a read-write one reads the latest data and
    /// records it in the read set.
    func documents(at paths: [ResourcePath], in transaction: TransactionID) throws(HearthError) -> [StoredDocument?] {
        let (documents, readWrite) = try read(in: transaction, "reading documents in a transaction") { db in
            try fetchWithinBudget(paths, in: db)
        }
        if readWrite { try transactions.record(transaction, documents: Array(zip(paths, documents))) }
        return documents
    }

    /// Runs reads that must agree in one snapshot of a transaction: a read-only one's own (imported), else the
    /// latest data in a fresh one; answers whether the transaction is read-write (its reads to be recorded).
    /// Looking the transaction up refreshes its idle timer, and an unknown or expired one is refused.
    func read<T>(
        in transaction: TransactionID, _ what: String, _ body: (PostgresConnection) throws -> T
    ) throws(HearthError) -> (T, readWrite: Bool) {
        if let snapshot = try transactions.snapshot(transaction) {
            let name = snapshot.connection.withLock { $0 }
            return (try readInSnapshot(name, what, body), false)
        }
        return (try readSnapshot(what, body), true)
    }

    /// Ends a transaction for its commit, answering its read set (`nil` for a read-only one, which may not write).
    func finishTransaction(_ transaction: TransactionID, writes: [Write]) throws(HearthError) -> TransactionReadSet? {
        if !writes.isEmpty && transactions.isReadOnly(transaction) {
            try? transactions.rollback(transaction)
            throw .invalidArgument("A read-only transaction cannot write; begin a read-write transaction.")
        }
        return try transactions.finishForCommit(transaction)
    }

    /// Inside a commit's PostgreSQL transaction, before it reads anything: takes the path locks of what it writes
    /// and reads, then checks that nothing it read changed (`ABORTED` otherwise): each document
    /// (``lockAndValidateDocuments(_:reads:in:)``), then each query, rerun by `ReadSetValidator.validateQueries` on
    /// the commit's connection with the catalog in force (the caller refreshed it in this transaction). A document a rerun finds that no path lock covered (one the
    /// query matches now and did not then) is kept still by the commit gate, which a commit whose read set holds
    /// queries takes exclusively (``PostgresCommitOrder/lockAllCommits(in:)``, see `runCommit`): between the check
    /// and the writes no other commit of any node runs, so none can change what the query matches.
    func lockAndValidate(_ writes: [Write], reads: TransactionReadSet?, in db: PostgresConnection) throws {
        try Self.lockAndValidateDocuments(writes, reads: reads, in: db)
        guard let reads, !reads.queries.isEmpty else { return }
        try ReadSetValidator.validateQueries(reads, catalog: catalog, in: PostgresIndexScanner(db: db))
    }

    /// The path locks of what a commit writes and read, then the check of the documents it read, each read
    /// `FOR SHARE`: of two commits against the same documents at once, the second waits for the first and then sees
    /// its changes.
    static func lockAndValidateDocuments(
        _ writes: [Write], reads: TransactionReadSet?, in db: PostgresConnection
    ) throws {
        try PostgresPathLocks.lock(
            writing: writes.map(\.path), reading: reads.map { Array($0.documents.keys) } ?? [], in: db)
        guard let reads else { return }
        try ReadSetValidator.validateDocuments(reads) { path in
            try PostgresDocumentRows.fetch(path, locking: .share, in: db)
        }
    }

    /// Runs reads in a read-only transaction's exported snapshot, imported by a pooled connection. A snapshot that
    /// is gone (its transaction ended, or the node holding it went away) is the transaction's expiry.
    private func readInSnapshot<T>(
        _ snapshot: PostgresSnapshotName, _ what: String, _ body: (PostgresConnection) throws -> T
    ) throws(HearthError) -> T {
        // Snapshot names are hexadecimal digits and dashes; anything else would not be ours.
        guard !snapshot.name.isEmpty, snapshot.name.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw TransactionRegistry<PostgresSnapshotName>.expired
        }
        do {
            return try readers.withTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { db in
                try db.query("SET TRANSACTION SNAPSHOT '\(snapshot.name)'")
                return try body(db)
            }
        } catch let error as PostgresError where error.sqlState == "42704" || error.sqlState == "22023" {
            // "snapshot does not exist" (its exporting transaction ended), or a name PostgreSQL cannot read.
            throw TransactionRegistry<PostgresSnapshotName>.expired
        } catch {
            throw hearthError(error, doing: what)
        }
    }
}
