public import HearthCore
internal import HearthPostgres
public import HearthStore

extension PostgresDocumentStore {
    /// Commits writes atomically on a commit lane (see `DocumentCommitter.commit`): one PostgreSQL transaction per
    /// commit, preconditions checked and transforms resolved against the rows it locks, stamped with its numbers and
    /// time once they are locked (PostgresCommitOrder), the judge asked inside it and the receipt recorded, so
    /// commits on different documents never wait on each other, on one node or on several. Its changes reach the feed, in the order every node
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
        commitLanes.async { [self] in
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
                        let (numbers, commitTime) = try PostgresCommitOrder.stamp(
                            changes: documents.count, now: configuration.clock.now(), after: documents, in: db)
                        try db.query("DELETE FROM documents")
                        try PostgresIndexRows.deleteAll(in: db)
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
    ///
    /// The writes are worked out and judged in memory first, at a time chosen from the clock and the locked
    /// documents; only then is the commit stamped (PostgresCommitOrder.stamp) and its rows written, so that the
    /// stretch between its stamp and its `COMMIT`, which every feed waits through, holds no judge. When the stamp
    /// gives a later time (another commit stamped one meanwhile), the writes are worked out again at it, so that
    /// update times and server timestamps carry the commit's time; the judge saw the earlier one as `request.time`.
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
                    // Every document the commit writes, locked and read in one statement.
                    let documents = try PostgresDocumentRows.fetch(job.writes.map(\.path), locking: .update, in: db)
                    let locked = documents.values.compactMap { $0 }
                    let latest = locked.map(\.updateTime.microseconds).max() ?? Int64.min
                    let now = configuration.clock.now()
                    let provisional = now.microseconds > latest ? now : Timestamp(microseconds: latest + 1)
                    var worked = try Self.work(
                        job.writes, on: documents, at: provisional, database: job.database, judge: job.judge,
                        stored: stored)
                    // Stamped once judged: one number per change, and a time later than each document's last write
                    // and every earlier stamp.
                    let (numbers, commitTime) = try PostgresCommitOrder.stamp(
                        changes: worked.count(where: \.outcome.changed), now: provisional, after: locked, in: db)
                    if commitTime != provisional {
                        worked = try Self.work(
                            job.writes, on: documents, at: commitTime, database: job.database, judge: nil,
                            stored: stored)
                    }
                    var results: [WriteResult] = []
                    var records: [ChangeRecord] = []
                    var indexRows = PendingIndexRows()
                    for write in worked {
                        let (result, record) = try store(write, commitTime: commitTime, indexRows: &indexRows, in: db)
                        results.append(result)
                        if var record {
                            // Worked out again at a later time, a write can only change more if the time is what
                            // it writes, as a value equal to one stored: never in practice, and then retried.
                            guard records.count < numbers.count else {
                                throw HearthError(.aborted, "The commit raced another; retry it.")
                            }
                            record.sequence = numbers[records.count]
                            records.append(record)
                        }
                    }
                    try indexRows.write(in: db)
                    let result = CommitResult(commitTime: commitTime, writeResults: results)
                    if let receipt = job.receipt {
                        try PostgresWriteReceipts.record(
                            receipt.id, answer: receipt.answer(result),
                            retention: configuration.writeReceiptRetention, in: db)
                    }
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

    /// A write of a commit as worked out in memory, before anything is stored.
    private struct WorkedWrite {
        var write: Write
        var outcome: WriteApplier.Outcome
        /// The document as the write finds it: as locked, or as an earlier write of the commit left it.
        var before: StoredDocument?
        /// The fields of `before`, decoded (its index entries are dropped from them).
        var oldFields: [String: Value]?
        /// The document as the write leaves it, as it will be stored (`nil`: deleted, or no change).
        var after: StoredDocument?
    }

    /// Works out `writes` in order against `documents` (as locked) at `commitTime`. With a judge, each change is
    /// proposed and the judge asked once at the end; a failed precondition is thrown only once the judge allowed the
    /// writes up to it.
    private static func work(
        _ writes: [Write], on locked: [ResourcePath: StoredDocument?], at commitTime: Timestamp,
        database: DatabaseName, judge: CommitJudge?,
        stored: @escaping (ResourcePath) throws(HearthError) -> DocumentSnapshot?
    ) throws -> [WorkedWrite] {
        var documents = locked
        var changes: [CommitProposal.Change] = []
        var worked: [WorkedWrite] = []
        for write in writes {
            let before = documents[write.path] ?? nil
            let current = try before?.snapshot()
            do throws(HearthError) {
                try WriteApplier.checkPrecondition(of: write, on: current, database: database)
            } catch {
                guard let judge else { throw error }
                // The write as the caller meant it (a create as a create), for the rules to judge first.
                let meant = write.precondition == .exists(false) ? nil : current
                let intended = try WriteApplier.applyIgnoringPrecondition(write, to: meant, commitTime: commitTime)
                changes.append(CommitProposal.Change(write: write, before: meant, after: intended.document))
                try judge(CommitProposal(commitTime: commitTime, changes: changes, stored: stored))
                throw error
            }
            let outcome = try WriteApplier.applyIgnoringPrecondition(write, to: current, commitTime: commitTime)
            if judge != nil {
                changes.append(CommitProposal.Change(write: write, before: current, after: outcome.document))
            }
            let after = outcome.document.map {
                StoredDocument(
                    path: $0.path, fieldsJSON: Value.encodeFields($0.fields), createTime: $0.createTime,
                    updateTime: $0.updateTime)
            }
            worked.append(
                WorkedWrite(write: write, outcome: outcome, before: before, oldFields: current?.fields, after: after))
            if outcome.changed { documents[write.path] = .some(after) }
        }
        try judge?(CommitProposal(commitTime: commitTime, changes: changes, stored: stored))
        return worked
    }

    /// Stores one worked-out write and returns its change-log row (numbered by the caller, appended with the commit's
    /// others), and notes its index entries' changes in `indexRows`; a write that changes nothing stores nothing.
    private func store(
        _ worked: WorkedWrite, commitTime: Timestamp, indexRows: inout PendingIndexRows, in db: PostgresConnection
    ) throws -> (WriteResult, ChangeRecord?) {
        let (write, outcome, before) = (worked.write, worked.outcome, worked.before)
        guard outcome.changed else {
            return (
                WriteResult(
                    updateTime: outcome.document?.updateTime, transformResults: outcome.transformResults,
                    document: outcome.document == nil ? nil : before),
                nil
            )
        }
        if let after = worked.after {
            try PostgresDocumentRows.store(after, in: db)
        } else {
            try PostgresDocumentRows.delete(write.path, in: db)
        }
        PostgresIndexRows.update(
            path: write.path, old: worked.oldFields, new: outcome.document?.fields, catalog: catalog,
            into: &indexRows)
        let record = ChangeRecord(
            sequence: 0, commitTime: commitTime, path: write.path, before: before, after: worked.after)
        return (
            WriteResult(
                updateTime: worked.after?.updateTime, transformResults: outcome.transformResults,
                document: worked.after),
            record
        )
    }
}
