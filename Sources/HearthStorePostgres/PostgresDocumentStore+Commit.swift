public import HearthCore
internal import HearthPostgres
public import HearthStore

extension PostgresDocumentStore {
    /// Commits writes atomically on the writer queue (see `DocumentCommitter.commit`): one PostgreSQL transaction
    /// per commit, preconditions checked and transforms resolved against the rows it locks, the judge asked inside
    /// it, the receipt recorded last. Its changes are published once `COMMIT` returned, before the next commit runs.
    /// Commits in a transaction answer `UNIMPLEMENTED` for now.
    public func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?, judge: CommitJudge?,
        receipt: WriteReceipt<CommitResult>?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        do throws(HearthError) {
            for write in writes { try WriteApplier.validate(write) }
            if transaction != nil { throw Self.notYet("Transactions are") }
        } catch {
            completion(.failure(error))
            return
        }
        let job = CommitJob(writes: writes, database: database, judge: judge, receipt: receipt)
        writerQueue.async { [self] in
            let outcome = runCommit(job)
            finish(outcome, writes: writes.count, completion: completion)
        }
    }

    /// Deletes every document on the writer queue, one change-log row each.
    public func deleteAllDocuments(completion: @escaping @Sendable (Result<Int, HearthError>) -> Void) {
        writerQueue.async { [self] in
            let outcome = Result { () throws(HearthError) -> (Int, [ChangeRecord]) in
                do {
                    return try writer.withTransaction("BEGIN") { db in
                        let (commitTime, last) = try PostgresChangeLog.beginCommit(
                            now: configuration.clock.now(), in: db)
                        let documents = try PostgresDocumentRows.all(in: db)
                        let records = documents.enumerated().map { offset, document in
                            ChangeRecord(
                                sequence: last + 1 + Int64(offset), commitTime: commitTime, path: document.path,
                                before: document, after: nil)
                        }
                        for record in records { try PostgresChangeLog.append(record, in: db) }
                        try db.query("DELETE FROM documents")
                        try PostgresChangeLog.endCommit(lastSequence: last + Int64(records.count), in: db)
                        return (documents.count, records)
                    }
                } catch {
                    throw hearthError(error, doing: "deleting every document")
                }
            }
            if case .success(let (_, records)) = outcome { follower.committed(records) }
            completion(outcome.map(\.0))
        }
    }

    /// A commit as queued.
    struct CommitJob {
        var writes: [Write]
        var database: DatabaseName
        var judge: CommitJudge?
        var receipt: WriteReceipt<CommitResult>?
    }

    /// Publishes a commit's changes, counts it and answers.
    private func finish(
        _ outcome: Result<(CommitResult, [ChangeRecord]), HearthError>, writes: Int,
        completion: @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        switch outcome {
        case .success(let (result, records)):
            follower.committed(records)
            counters.withLock { counters in
                counters.commits += 1
                counters.writes += writes
            }
            completion(.success(result))
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
                    let (commitTime, last) = try PostgresChangeLog.beginCommit(now: configuration.clock.now(), in: db)
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
                    for write in job.writes {
                        let before = try PostgresDocumentRows.fetch(write.path, locking: true, in: db)
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
                            write, outcome, before: before, commitTime: commitTime,
                            sequence: last + Int64(records.count) + 1, in: db)
                        results.append(result)
                        if let record { records.append(record) }
                    }
                    try job.judge?(CommitProposal(commitTime: commitTime, changes: changes, stored: stored))
                    let result = CommitResult(commitTime: commitTime, writeResults: results)
                    if let receipt = job.receipt {
                        try PostgresWriteReceipts.record(
                            receipt.id, answer: receipt.answer(result),
                            retention: configuration.writeReceiptRetention, in: db)
                    }
                    try PostgresChangeLog.endCommit(lastSequence: last + Int64(records.count), in: db)
                    return (result, records)
                })
        } catch {
            return .failure(hearthError(error, doing: "committing"))
        }
    }

    /// Stores one worked-out write and its change-log row; a write that changes nothing stores nothing.
    private func apply(
        _ write: Write, _ outcome: WriteApplier.Outcome, before: StoredDocument?, commitTime: Timestamp,
        sequence: Int64, in db: PostgresConnection
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
        let record = ChangeRecord(
            sequence: sequence, commitTime: commitTime, path: write.path, before: before, after: after)
        try PostgresChangeLog.append(record, in: db)
        return (
            WriteResult(updateTime: after?.updateTime, transformResults: outcome.transformResults, document: after),
            record
        )
    }
}
