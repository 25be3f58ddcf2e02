import HearthCore
import HearthSQLite
import HearthStore

/// The writer's document jobs: commits (judged, with their receipts), the wipe, and index build steps.
extension CommitWriter {
    /// One commit: every write or none. A multi-write commit, or one with a receipt, runs in its own savepoint; a
    /// single write fails, if at all, before it changes a row (preconditions, limits and the rules are checked first),
    /// so it needs none. A storage error there is rethrown and fails the whole group, so nothing half-written can
    /// commit.
    ///
    /// The judge sees the commit on this connection: documents the commit does not write read as they are at this
    /// moment, the ones it writes as each write found and left them. A single write is judged before it is stored;
    /// a multi-write commit after all its writes are applied, and a refusal rolls its savepoint back. A receipt is
    /// recorded last, so a refused commit leaves none.
    func runCommit(_ commit: CommitJob) throws -> Result<CommitResult, HearthError> {
        let commitTime = nextCommitTime()
        let writes = commit.writes
        let judge = commit.judge
        let applyAll = { [self] () throws -> [WriteResult] in
            if let reads = commit.reads { try ReadSetValidator.validate(reads, catalog: catalog, in: connection) }
            if writes.count == 1, let judge {
                let prepared = try prepare(
                    writes[0], encoded: commit.encoded[0], commitTime: commitTime, database: commit.database,
                    judged: true)
                try judge(
                    CommitProposal(commitTime: commitTime, changes: [prepared.change], stored: storedDocument))
                if let failed = prepared.failedPrecondition { throw failed }
                return [try store(prepared, commitTime: commitTime)]
            }
            var results: [WriteResult] = []
            var changes: [CommitProposal.Change] = []
            results.reserveCapacity(writes.count)
            if judge != nil { changes.reserveCapacity(writes.count) }
            for (write, encoded) in zip(writes, commit.encoded) {
                let prepared = try prepare(
                    write, encoded: encoded, commitTime: commitTime, database: commit.database, judged: judge != nil)
                if judge != nil { changes.append(prepared.change) }
                if let failed = prepared.failedPrecondition {
                    // The rules speak first: a caller refused any of the writes so far learns nothing from this one.
                    try judge?(CommitProposal(commitTime: commitTime, changes: changes, stored: storedDocument))
                    throw failed
                }
                results.append(try store(prepared, commitTime: commitTime))
            }
            try judge?(CommitProposal(commitTime: commitTime, changes: changes, stored: storedDocument))
            return results
        }
        let body = { [self] () throws -> [WriteResult] in
            let results = try applyAll()
            try record(commit.receipt, CommitResult(commitTime: commitTime, writeResults: results))
            return results
        }
        let isolated = writes.count != 1 || commit.receipt != nil
        do {
            let results = isolated ? try connection.savepoint("commit", body) : try body()
            return .success(CommitResult(commitTime: commitTime, writeResults: results))
        } catch let error as HearthError {
            return .failure(error)
        } catch let error where isolated {
            return .failure(.internal("The commit failed: \(error)"))
        }
    }

    /// Records a commit's idempotency key and answer, when it has one, in the commit's savepoint.
    func record(_ receipt: WriteReceipt<CommitResult>?, _ result: CommitResult) throws {
        guard let receipt else { return }
        try WriteReceipts.record(
            receipt.id, answer: receipt.answer(result), retention: configuration.writeReceiptRetention, in: connection)
    }

    /// A document as the writer connection sees it now, for the rules' reads.
    func storedDocument(_ path: ResourcePath) throws(HearthError) -> DocumentSnapshot? {
        let document: StoredDocument?
        do {
            document = try DocumentRows.fetch(path, in: connection)
        } catch {
            throw .internal("Reading \(path) for the rules failed: \(error)")
        }
        return try document?.snapshot()
    }

    /// One write worked out against its document as stored, nothing written yet.
    struct PreparedWrite {
        var write: Write
        /// The write's fields as stored, when made on the submitting thread.
        var encoded: EncodedFields?
        var before: StoredDocument?
        /// The body `before`'s row names, deleted once the write replaces or removes it.
        var beforeBody: Int64?
        var current: DocumentSnapshot?
        var outcome: WriteApplier.Outcome
        /// Set when the precondition failed in a judged commit: what to answer once the rules allowed the write,
        /// `outcome` then being the write worked out as the caller meant it.
        var failedPrecondition: HearthError?
        /// The document as the rules see it before the write (`nil` for a create that found one).
        var judgedBefore: DocumentSnapshot?

        /// The write as the rules see it.
        var change: CommitProposal.Change {
            CommitProposal.Change(write: write, before: judgedBefore, after: outcome.document)
        }
    }

    /// Works one write out against its document. In a judged commit a failed precondition is not thrown at once
    /// (its answer tells whether the document exists, and when it was updated): the write is worked out as the
    /// caller meant it — a create as a create — for the rules to judge, and the precondition's error is answered
    /// only if they allow it.
    func prepare(
        _ write: Write, encoded: EncodedFields?, commitTime: Timestamp, database: DatabaseName, judged: Bool = false
    ) throws -> PreparedWrite {
        let row = try DocumentRows.fetchRow(write.path, in: connection)
        let before = row?.document
        let current = try before?.snapshot()
        do throws(HearthError) {
            try WriteApplier.checkPrecondition(of: write, on: current, database: database)
        } catch {
            guard judged else { throw error }
            let meant = write.precondition == .exists(false) ? nil : current
            let outcome = try WriteApplier.applyIgnoringPrecondition(write, to: meant, commitTime: commitTime)
            return PreparedWrite(
                write: write, encoded: encoded, before: before, beforeBody: row?.body, current: current,
                outcome: outcome, failedPrecondition: error, judgedBefore: meant)
        }
        let outcome = try WriteApplier.applyIgnoringPrecondition(write, to: current, commitTime: commitTime)
        return PreparedWrite(
            write: write, encoded: encoded, before: before, beforeBody: row?.body, current: current, outcome: outcome,
            judgedBefore: current)
    }

    /// Stores a prepared write: its row, index entries and change-log record.
    func store(_ prepared: PreparedWrite, commitTime: Timestamp) throws -> WriteResult {
        let (write, before, current, outcome) = (prepared.write, prepared.before, prepared.current, prepared.outcome)
        guard outcome.changed else {
            return WriteResult(
                updateTime: outcome.document?.updateTime, transformResults: outcome.transformResults,
                document: outcome.document == nil ? nil : before)
        }
        var after: StoredDocument?
        if let document = outcome.document {
            let json = prepared.encoded?.json ?? Value.encodeFields(document.fields)
            try DocumentRows.store(
                document, fieldsJSON: json, entries: prepared.encoded?.entries, oldFields: current?.fields,
                oldBody: prepared.beforeBody, in: connection)
            try catalog.updateEntries(path: write.path, old: current?.fields, new: document.fields, in: connection)
            after = StoredDocument(
                path: document.path, fieldsJSON: json, createTime: document.createTime, updateTime: document.updateTime)
        } else if let current {
            try DocumentRows.delete(
                write.path, oldFields: current.fields, oldBody: prepared.beforeBody, in: connection)
            try catalog.updateEntries(path: write.path, old: current.fields, new: nil, in: connection)
        }
        let record = try ChangeLog.append(
            commitTime: commitTime, path: write.path, before: before, after: after, in: connection)
        pendingRecords.withLock { $0.append(record) }
        return WriteResult(updateTime: after?.updateTime, transformResults: outcome.transformResults, document: after)
    }

    func runDeleteAll() -> Result<Int, HearthError> {
        let commitTime = nextCommitTime()
        do {
            let count = try connection.savepoint("wipe") { () throws -> Int in
                let rows = try connection.fetchAll(
                    """
                    SELECT d.collection, d.id, coalesce(b.fields, d.fields), d.create_time, d.update_time
                    FROM documents d LEFT JOIN document_bodies b ON b.id = d.body
                    """)
                for row in rows {
                    let path = ResourcePath(
                        segments: (row[0].text + "/" + row[1].text).split(separator: "/").map(String.init))
                    guard case .blob(let fields) = row[2] else { continue }
                    let before = StoredDocument(
                        path: path, fieldsJSON: fields, createTime: Timestamp(microseconds: row[3].integer),
                        updateTime: Timestamp(microseconds: row[4].integer))
                    let record = try ChangeLog.append(
                        commitTime: commitTime, path: path, before: before, after: nil, in: connection)
                    pendingRecords.withLock { $0.append(record) }
                }
                try connection.execute("DELETE FROM documents")
                try connection.execute("DELETE FROM document_bodies")
                try connection.execute("DELETE FROM index_entries")
                try connection.execute("DELETE FROM composite_entries")
                return rows.count
            }
            return .success(count)
        } catch {
            return .failure(.internal("The wipe failed: \(error)"))
        }
    }

    func runBuildStep(id: Int64, after cursor: [UInt8]) -> Result<IndexCatalog.BuildStep, HearthError> {
        do {
            return .success(
                try connection.savepoint("build") {
                    try catalog.buildStep(
                        indexID: id, after: cursor, limit: configuration.indexBuildStepDocuments, in: connection)
                })
        } catch {
            return .failure(.internal("Building index \(id) failed: \(error)"))
        }
    }
}
