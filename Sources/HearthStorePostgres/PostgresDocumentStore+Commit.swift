public import HearthCore
internal import HearthPostgres
public import HearthStore

extension PostgresDocumentStore {
    /// Commits writes atomically on the writer queue (see `DocumentCommitter.commit`): one PostgreSQL transaction
    /// per commit, preconditions checked and transforms resolved against the rows it locks, the judge asked inside
    /// it, the receipt recorded, and its change-log numbers taken last (PostgresCommitOrder), so commits of different
    /// nodes on different documents never wait on each other. Its changes reach the feed, in the order every node
    /// delivers, before the caller hears back. A commit in a read-write transaction first checks its read set, under
    /// locks, in that same transaction.
    public func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?, judge: CommitJudge?,
        receipt: WriteReceipt<CommitResult>?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        var reads: TransactionReadSet?
        do throws(HearthError) {
            for write in writes { try WriteApplier.validate(write) }
            if let transaction { reads = try finishTransaction(transaction, writes: writes) }
        } catch {
            completion(.failure(error))
            return
        }
        let job = CommitJob(writes: writes, database: database, reads: reads, judge: judge, receipt: receipt)
        writerQueue.async { [self] in
            let outcome = runCommit(job)
            finish(outcome, writes: writes.count, completion: completion)
        }
    }

    /// Deletes every document on the writer queue, one change-log row each, with every commit held off meanwhile.
    public func deleteAllDocuments(completion: @escaping @Sendable (Result<Int, HearthError>) -> Void) {
        writerQueue.async { [self] in
            let outcome = Result { () throws(HearthError) -> (Int, [ChangeRecord]) in
                do {
                    return try writer.withTransaction("BEGIN") { db in
                        try PostgresCommitOrder.lockAllCommits(in: db)
                        let documents = try PostgresDocumentRows.all(in: db)
                        let commitTime = Self.commitTime(now: configuration.clock.now(), after: documents)
                        try db.query("DELETE FROM documents")
                        try PostgresIndexRows.deleteAll(in: db)
                        let numbers = try PostgresCommitOrder.numbering(documents.count, of: .documents, in: db)
                        let records = zip(numbers, documents).map { sequence, document in
                            ChangeRecord(
                                sequence: sequence, commitTime: commitTime, path: document.path, before: document,
                                after: nil)
                        }
                        try PostgresChangeLog.append(records, in: db)
                        return (documents.count, records)
                    }
                } catch {
                    throw hearthError(error, doing: "deleting every document")
                }
            }
            guard case .success(let (count, records)) = outcome else { return completion(outcome.map(\.0)) }
            follower.committed(through: records.last?.sequence) { completion(.success(count)) }
        }
    }

    /// A commit as queued.
    struct CommitJob {
        var writes: [Write]
        var database: DatabaseName
        /// What the commit's read-write transaction read (`nil` outside one).
        var reads: TransactionReadSet?
        var judge: CommitJudge?
        var receipt: WriteReceipt<CommitResult>?
    }

    /// Counts a commit, and answers once its changes are on the feed (which the next commit does not wait for).
    private func finish(
        _ outcome: Result<(CommitResult, [ChangeRecord]), HearthError>, writes: Int,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        switch outcome {
        case .success(let (result, records)):
            counters.withLock { counters in
                counters.commits += 1
                counters.writes += writes
            }
            follower.committed(through: records.last?.sequence) { completion(.success(result)) }
        case .failure(let error):
            counters.withLock { $0.failedCommits += 1 }
            completion(.failure(error))
        }
    }

    /// One commit in its own transaction. As in SQLite's engine, in a judged commit a failed precondition is
    /// answered only once the rules allowed the writes so far (its answer tells whether the document exists).
    private func runCommit(_ job: CommitJob) -> Result<(CommitResult, [ChangeRecord]), HearthError> {
        do {
            return .success(
                try writer.withTransaction("BEGIN") { db in
                    // Commits share the gate; one whose read set holds queries takes it alone, so that no commit
                    // can add a document its queries would now match between their rerun and its writes.
                    if job.reads?.queries.isEmpty == false {
                        try PostgresCommitOrder.lockAllCommits(in: db)
                    } else {
                        try PostgresCommitOrder.enterCommit(in: db)
                    }
                    try refreshCatalog(in: db)
                    try lockAndValidate(job.writes, reads: job.reads, in: db)
                    let stored = { (path: ResourcePath) throws(HearthError) -> DocumentSnapshot? in
                        do {
                            return try PostgresDocumentRows.fetch(path, in: db)?.snapshot()
                        } catch {
                            throw hearthError(error, doing: "reading \(path) for the rules")
                        }
                    }
                    var results: [WriteResult] = []
                    var records: [ChangeRecord] = []
                    var changes: [CommitProposal.Change] = []
                    var indexRows = PendingIndexRows()
                    // Every document the commit writes, locked and read in one statement, then as each write left it.
                    var documents = try PostgresDocumentRows.fetch(job.writes.map(\.path), locking: .update, in: db)
                    // Chosen once its documents are locked: later than each one's last write.
                    let commitTime = Self.commitTime(
                        now: configuration.clock.now(), after: documents.values.compactMap { $0 })
                    for write in job.writes {
                        let before = documents[write.path] ?? nil
                        let current = try before?.snapshot()
                        do throws(HearthError) {
                            try WriteApplier.checkPrecondition(of: write, on: current, database: job.database)
                        } catch {
                            guard let judge = job.judge else { throw error }
                            // The write as the caller meant it (a create as a create), for the rules to judge first.
                            let meant = write.precondition == .exists(false) ? nil : current
                            let intended = try WriteApplier.applyIgnoringPrecondition(
                                write, to: meant, commitTime: commitTime)
                            changes.append(CommitProposal.Change(write: write, before: meant, after: intended.document))
                            try judge(CommitProposal(commitTime: commitTime, changes: changes, stored: stored))
                            throw error
                        }
                        let outcome = try WriteApplier.applyIgnoringPrecondition(
                            write, to: current, commitTime: commitTime)
                        if job.judge != nil {
                            changes.append(
                                CommitProposal.Change(write: write, before: current, after: outcome.document))
                        }
                        let (result, record) = try apply(
                            write, outcome, before: before, oldFields: current?.fields, commitTime: commitTime,
                            indexRows: &indexRows, in: db)
                        results.append(result)
                        if let record {
                            records.append(record)
                            documents[write.path] = .some(record.after)
                        }
                    }
                    try job.judge?(CommitProposal(commitTime: commitTime, changes: changes, stored: stored))
                    try indexRows.write(in: db)
                    let result = CommitResult(commitTime: commitTime, writeResults: results)
                    if let receipt = job.receipt {
                        try PostgresWriteReceipts.record(
                            receipt.id, answer: receipt.answer(result),
                            retention: configuration.writeReceiptRetention, in: db)
                    }
                    // Numbered last, holding every lock taken above: see PostgresCommitOrder.
                    let numbers = try PostgresCommitOrder.numbering(records.count, of: .documents, in: db)
                    for index in records.indices { records[index].sequence = numbers[index] }
                    try PostgresChangeLog.append(records, in: db)
                    if let pause = configuration.pauseAfterNumbering?(numbers), pause > 0 {
                        try db.query("SELECT pg_sleep($1::float8)", [.text(String(pause))])
                    }
                    return (result, records)
                })
        } catch {
            return .failure(hearthError(error, doing: "committing"))
        }
    }

    /// A commit's time: `now`, or just after the last write of a document it locked when the clock has not moved
    /// past it, so each document's update times strictly increase whichever node wrote it.
    static func commitTime(now: Timestamp, after documents: [StoredDocument]) -> Timestamp {
        let latest = documents.map(\.updateTime.microseconds).max() ?? Int64.min
        return now.microseconds > latest ? now : Timestamp(microseconds: latest + 1)
    }

    /// Stores one worked-out write and returns its change-log row (numbered at the end of the commit, appended with
    /// the commit's others), and notes its index entries' changes (from `oldFields`, the stored document's) in
    /// `indexRows`; a write that changes nothing stores nothing.
    private func apply(
        _ write: Write, _ outcome: WriteApplier.Outcome, before: StoredDocument?, oldFields: [String: Value]?,
        commitTime: Timestamp, indexRows: inout PendingIndexRows, in db: PostgresConnection
    ) throws -> (WriteResult, ChangeRecord?) {
        guard outcome.changed else {
            return (
                WriteResult(
                    updateTime: outcome.document?.updateTime, transformResults: outcome.transformResults,
                    document: outcome.document == nil ? nil : before),
                nil
            )
        }
        var after: StoredDocument?
        if let document = outcome.document {
            let stored = StoredDocument(
                path: document.path, fieldsJSON: Value.encodeFields(document.fields),
                createTime: document.createTime, updateTime: document.updateTime)
            try PostgresDocumentRows.store(stored, in: db)
            after = stored
        } else {
            try PostgresDocumentRows.delete(write.path, in: db)
        }
        PostgresIndexRows.update(
            path: write.path, old: oldFields, new: outcome.document?.fields, catalog: catalog, into: &indexRows)
        let record = ChangeRecord(
            sequence: 0, commitTime: commitTime, path: write.path, before: before, after: after)
        return (
            WriteResult(updateTime: after?.updateTime, transformResults: outcome.transformResults, document: after),
            record
        )
    }
}
