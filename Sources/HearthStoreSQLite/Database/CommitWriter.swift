import Foundation
import HearthCore
import HearthLog
import HearthSQLite
import HearthStore
import Synchronization

/// The single writer: a thread that owns the write connection and folds every commit waiting at the moment
/// it wakes into one SQLite transaction (group commit). Each commit runs inside its own savepoint, so one
/// commit's failed precondition rolls back that commit alone; the acknowledgements go out after `COMMIT`.
final class CommitWriter: Sendable {
    /// A document commit: its writes, the transaction's reads to validate, and the rules check to run on it.
    struct CommitJob: Sendable {
        var writes: [Write]
        var database: DatabaseName
        var reads: TransactionRegistry.ReadSet?
        var judge: CommitJudge?
        /// The client's idempotency key, recorded with the answer in the commit's savepoint.
        var receipt: WriteReceipt<CommitResult>? = nil
        /// Per write, its fields as stored when they do not depend on the current document; made by `init`, on the
        /// submitting thread.
        let encoded: [EncodedFields?]

        init(
            writes: [Write], database: DatabaseName, reads: TransactionRegistry.ReadSet?, judge: CommitJudge?,
            receipt: WriteReceipt<CommitResult>? = nil
        ) {
            self.writes = writes
            self.database = database
            self.reads = reads
            self.judge = judge
            self.receipt = receipt
            encoded = writes.map(EncodedFields.init(precomputing:))
        }
    }

    enum Job: Sendable {
        case commit(CommitJob, @Sendable (Result<CommitResult, HearthError>) -> Void)
        // (See `freesSpace` below for which jobs a full disk still lets through.)
        case deleteAll(@Sendable (Result<Int, HearthError>) -> Void)
        /// One step of a background index build: the next chunk of documents after a `name_key`.
        case buildIndex(id: Int64, after: [UInt8], @Sendable (Result<[UInt8]?, HearthError>) -> Void)
        /// Any other atomic change (the tree engine's writes): `body` runs in its own savepoint with a fresh
        /// commit time; its `afterCommit` runs on this thread right after `COMMIT`, in commit order, before any
        /// acknowledgement — where a feed is published.
        /// `freesSpace`: it only deletes, so a full disk still lets it through (see `DiskReserve`).
        case atomic(
            @Sendable (SQLiteConnection, Timestamp) throws -> AtomicOutcome,
            @Sendable (Result<AtomicOutcome, any Error>) -> Void, freesSpace: Bool = false)
    }

    /// What an `.atomic` job produced.
    struct AtomicOutcome: Sendable {
        var value: any Sendable
        var afterCommit: (@Sendable () -> Void)?
        /// The writes it applied, for the commit counters (`/metrics`): a job that wrote counts as one commit of
        /// this many writes; one that wrote nothing (refused, stale) counts as neither commit nor failure.
        var writes = 0
    }

    private struct State {
        var pending: [Job] = []
        var stopping = false
        var stopped = false
        var lastCommitMicros: Int64 = 0
        /// The checkpointer found the write-ahead log over its limit (`requestLogRestart()`).
        var logRestartRequested = false
        /// The disk reserve was given up for deletes and is not back yet (logged once each way).
        var reserveGivenUp = false
    }

    private let connection: SQLiteConnection
    private let configuration: SQLiteDatabase.Configuration
    private let catalog: IndexCatalog
    /// Point reads' cache: each group drops the documents it writes before `COMMIT`.
    private let cache: DocumentCache
    /// Where committed document changes go, after `COMMIT`.
    let feed: ChangeFeed<ChangeRecord>
    /// Records appended by the current group's jobs; published only if the group commits. A failing job's own
    /// records are dropped with its savepoint (see `run(job:)`).
    private let pendingRecords = Mutex<[ChangeRecord]>([])
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// The space given up on a full disk so deletes still go through; `nil` keeps none.
    private let reserve: DiskReserve?

    init(
        connection: SQLiteConnection, configuration: SQLiteDatabase.Configuration, catalog: IndexCatalog,
        cache: DocumentCache, feed: ChangeFeed<ChangeRecord>, reserve: DiskReserve? = nil
    ) {
        self.reserve = reserve
        self.feed = feed
        self.cache = cache
        self.connection = connection
        self.configuration = configuration
        self.catalog = catalog
    }

    /// Commit counters, read by `/metrics`.
    let counters = Mutex(StoreStatistics(commits: 0, writes: 0, failedCommits: 0, databaseBytes: 0))

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "hearth-writer"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    func submit(_ job: Job) {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.pending.append(job)
            return true
        }
        guard accepted else {
            Self.fail(job, HearthError(.unavailable, "The server is shutting down."))
            return
        }
        wake.signal()
    }

    /// Asks the writer to rewind the write-ahead log after its current group commit; see `Checkpointer`.
    func requestLogRestart() {
        state.withLock { $0.logRestartRequested = true }
        wake.signal()
    }

    /// Finishes the jobs already queued, then closes the connection. Idempotent.
    func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard wasRunning else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        var commitsSincePrune = 0
        while true {
            wake.wait()
            let (jobs, stopping, restartLog) = state.withLock { state -> ([Job], Bool, Bool) in
                let count = min(state.pending.count, configuration.maxCommitsPerTransaction)
                let jobs = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                if !state.pending.isEmpty { wake.signal() }
                defer { state.logRestartRequested = false }
                return (jobs, state.stopping && state.pending.isEmpty, state.logRestartRequested)
            }
            if restartLog {
                // Between two groups this connection holds no lock, so only the frames written since the
                // checkpointer's last pass are left to copy. A reader still on the old frames makes it give up after
                // a moment rather than stall the writes queued behind; the checkpointer asks again next round.
                connection.checkpoint(.restart, busyTimeout: .milliseconds(5))
            }
            if !jobs.isEmpty {
                process(jobs)
                commitsSincePrune += jobs.count
                if commitsSincePrune >= 1000 {
                    commitsSincePrune = 0
                    do {
                        try ChangeLog.prune(retention: configuration.changeLogRetention, in: connection)
                    } catch {
                        // Retried after the next thousand commits; meanwhile the change log only grows.
                        configuration.logger.warning("change log not pruned", ["error": .string("\(error)")])
                    }
                }
            }
            if stopping {
                connection.checkpoint(.truncate)
                connection.close()
                finished.signal()
                return
            }
        }
    }

    /// Commits a group; on a full disk, retries its deletes alone in the space the reserve gives up.
    private func process(_ jobs: [Job]) {
        var jobs = jobs
        if let reserve, !reserve.isReleased, state.withLock({ $0.reserveGivenUp }) {
            state.withLock { $0.reserveGivenUp = false }
            configuration.logger.info("disk reserve restored; writes are accepted again")
        }
        if let reserve, reserve.isReleased {
            // The reserve is gone: the disk is full, and what room there is goes to deletes.
            for job in jobs where !job.freesSpace { Self.fail(job, Self.diskFull) }
            jobs.removeAll { !$0.freesSpace }
            guard !jobs.isEmpty else { return }
        }
        guard let error = commitGroup(jobs) else { return }
        let freeing = jobs.filter(\.freesSpace)
        if DiskReserve.isDiskFull(error), let reserve, !freeing.isEmpty, reserve.release() {
            if !state.withLock({ $0.reserveGivenUp }) {
                state.withLock { $0.reserveGivenUp = true }
                configuration.logger.warning(
                    "disk full: gave up the disk reserve for deletes; other writes are refused until there is room",
                    ["reserveBytes": .int(reserve.bytes)])
            }
            for job in jobs where !job.freesSpace { Self.fail(job, Self.diskFull) }
            if let again = commitGroup(freeing) { fail(freeing, error: again) }
            return
        }
        fail(jobs, error: error)
    }

    /// A write refused for want of disk space.
    private static let diskFull = HearthError(
        .unavailable, "The disk is full: no write of this request was applied; deletes are still accepted.")

    private func fail(_ jobs: [Job], error: any Error) {
        configuration.logger.warning(
            "group commit failed; its writes were answered 503",
            ["jobs": .int(jobs.count), "error": .string("\(error)")])
        let failure =
            DiskReserve.isDiskFull(error)
            ? Self.diskFull
            : HearthError(
                .unavailable, "The database could not commit: \(error). No write of this request was applied.")
        for job in jobs { Self.fail(job, failure) }
        counters.withLock { $0.failedCommits += jobs.count }
    }

    /// Runs a group in one transaction and acknowledges its jobs; returns the error when the transaction failed
    /// (nothing of it applied, no job acknowledged).
    private func commitGroup(_ jobs: [Job]) -> (any Error)? {
        var acknowledgements: [@Sendable () -> Void] = []
        acknowledgements.reserveCapacity(jobs.count)
        var afterCommit: [@Sendable () -> Void] = []
        var committed = 0
        var writes = 0
        var failedJobs = 0
        pendingRecords.withLock { $0.removeAll(keepingCapacity: true) }
        var cacheGroupBegun = false
        do {
            try connection.transaction(.immediate) {
                for job in jobs {
                    let recordsBefore = pendingRecords.withLock { $0.count }
                    var failed = false
                    switch job {
                    case .commit(let commit, let completion):
                        let result = try runCommit(commit)
                        if case .success = result {
                            committed += 1
                            writes += commit.writes.count
                        } else {
                            failedJobs += 1
                            failed = true
                        }
                        acknowledgements.append { completion(result) }
                    case .deleteAll(let completion):
                        let result = runDeleteAll()
                        if case .failure = result { failed = true }
                        acknowledgements.append { completion(result) }
                    case .buildIndex(let id, let cursor, let completion):
                        let result = runBuildStep(id: id, after: cursor)
                        acknowledgements.append { [catalog] in
                            if case .success(nil) = result { catalog.markReady(id) }
                            completion(result)
                        }
                    case .atomic(let body, let completion, _):
                        let commitTime = nextCommitTime()
                        let result = Result<AtomicOutcome, any Error> {
                            try connection.savepoint("atomic") { try body(connection, commitTime) }
                        }
                        switch result {
                        case .success(let outcome):
                            if let hook = outcome.afterCommit { afterCommit.append(hook) }
                            if outcome.writes > 0 {
                                committed += 1
                                writes += outcome.writes
                            }
                        case .failure:
                            failedJobs += 1
                        }
                        acknowledgements.append { completion(result) }
                    }
                    // A failed job's savepoint rolled its rows back; its records must not be published either.
                    if failed { pendingRecords.withLock { $0.removeSubrange(recordsBefore...) } }
                }
                cache.beginGroup(writing: pendingRecords.withLock { $0.map(\.path) })
                cacheGroupBegun = true
            }
            cache.endGroup()
        } catch {
            if cacheGroupBegun { cache.endGroup() }
            return error
        }
        counters.withLock {
            $0.commits += committed
            $0.writes += writes
            $0.failedCommits += failedJobs
        }
        // Listeners hear of the group before any writer does, in commit order.
        feed.publish(pendingRecords.withLock { $0 })
        for hook in afterCommit { hook() }
        // Completions build responses and wake connections; they run off this thread so the next group commit
        // can start at once. The group is durable already, so their order among themselves does not matter.
        let group = acknowledgements
        DispatchQueue.global(qos: .userInitiated).async {
            for acknowledge in group { acknowledge() }
        }
        return nil
    }

    /// One commit: every write or none. A multi-write commit, or one with a receipt, runs in its own savepoint; a
    /// single write fails, if at all, before it changes a row (preconditions, limits and the rules are checked first),
    /// so it needs none. A storage error there is rethrown and fails the whole group, so nothing half-written can
    /// commit.
    ///
    /// The judge sees the commit on this connection: documents the commit does not write read as they are at this
    /// moment, the ones it writes as each write found and left them. A single write is judged before it is stored;
    /// a multi-write commit after all its writes are applied, and a refusal rolls its savepoint back. A receipt is
    /// recorded last, so a refused commit leaves none.
    private func runCommit(_ commit: CommitJob) throws -> Result<CommitResult, HearthError> {
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
    private func record(_ receipt: WriteReceipt<CommitResult>?, _ result: CommitResult) throws {
        guard let receipt else { return }
        try WriteReceipts.record(
            receipt.id, answer: receipt.answer(result), retention: configuration.writeReceiptRetention, in: connection)
    }

    /// A document as the writer connection sees it now, for the rules' reads.
    private func storedDocument(_ path: ResourcePath) throws(HearthError) -> DocumentSnapshot? {
        let document: StoredDocument?
        do {
            document = try DocumentRows.fetch(path, in: connection)
        } catch {
            throw .internal("Reading \(path) for the rules failed: \(error)")
        }
        return try document?.snapshot()
    }

    /// One write worked out against its document as stored, nothing written yet.
    private struct PreparedWrite {
        var write: Write
        /// The write's fields as stored, when made on the submitting thread.
        var encoded: EncodedFields?
        var before: StoredDocument?
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
    private func prepare(
        _ write: Write, encoded: EncodedFields?, commitTime: Timestamp, database: DatabaseName, judged: Bool = false
    ) throws -> PreparedWrite {
        let before = try DocumentRows.fetch(write.path, in: connection)
        let current = try before?.snapshot()
        do throws(HearthError) {
            try WriteApplier.checkPrecondition(of: write, on: current, database: database)
        } catch {
            guard judged else { throw error }
            let meant = write.precondition == .exists(false) ? nil : current
            let outcome = try WriteApplier.applyIgnoringPrecondition(write, to: meant, commitTime: commitTime)
            return PreparedWrite(
                write: write, encoded: encoded, before: before, current: current, outcome: outcome,
                failedPrecondition: error, judgedBefore: meant)
        }
        let outcome = try WriteApplier.applyIgnoringPrecondition(write, to: current, commitTime: commitTime)
        return PreparedWrite(
            write: write, encoded: encoded, before: before, current: current, outcome: outcome, judgedBefore: current)
    }

    /// Stores a prepared write: its row, index entries and change-log record.
    private func store(_ prepared: PreparedWrite, commitTime: Timestamp) throws -> WriteResult {
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
                in: connection)
            try catalog.updateEntries(path: write.path, old: current?.fields, new: document.fields, in: connection)
            after = StoredDocument(
                path: document.path, fieldsJSON: json, createTime: document.createTime, updateTime: document.updateTime)
        } else if let current {
            try DocumentRows.delete(write.path, oldFields: current.fields, in: connection)
            try catalog.updateEntries(path: write.path, old: current.fields, new: nil, in: connection)
        }
        let record = try ChangeLog.append(
            commitTime: commitTime, path: write.path, before: before, after: after, in: connection)
        pendingRecords.withLock { $0.append(record) }
        return WriteResult(updateTime: after?.updateTime, transformResults: outcome.transformResults, document: after)
    }

    private func runDeleteAll() -> Result<Int, HearthError> {
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

    private func runBuildStep(id: Int64, after cursor: [UInt8]) -> Result<[UInt8]?, HearthError> {
        do {
            return .success(
                try connection.savepoint("build") {
                    try catalog.buildStep(indexID: id, after: cursor, limit: 500, in: connection)
                })
        } catch {
            return .failure(.internal("Building index \(id) failed: \(error)"))
        }
    }

    /// Microseconds since the epoch, strictly increasing across commits so update times order commits.
    private func nextCommitTime() -> Timestamp {
        let now = configuration.clock.microseconds
        let micros = state.withLock { state -> Int64 in
            state.lastCommitMicros = max(now, state.lastCommitMicros + 1)
            return state.lastCommitMicros
        }
        return Timestamp(microseconds: micros)
    }

    private static func fail(_ job: Job, _ error: HearthError) {
        // (A job's completion runs once: a group that failed acknowledged none of its jobs.)
        switch job {
        case .commit(_, let completion): completion(.failure(error))
        case .deleteAll(let completion): completion(.failure(error))
        case .buildIndex(_, _, let completion): completion(.failure(error))
        case .atomic(_, let completion, _): completion(.failure(error))
        }
    }
}

extension CommitWriter.Job {
    /// Whether the job only deletes, so a full disk still lets it through (see `DiskReserve`): a commit of deletes
    /// a wipe, and a tree write that says so.
    var freesSpace: Bool {
        switch self {
        case .commit(let commit, _): commit.writes.allSatisfy { $0.operation == .delete && $0.transforms.isEmpty }
        case .deleteAll: true
        case .buildIndex: false
        case .atomic(_, _, let freesSpace): freesSpace
        }
    }
}
