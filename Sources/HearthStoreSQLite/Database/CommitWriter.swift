import Foundation
import HearthCore
import HearthLog
import HearthSQLite
import HearthStore
import Synchronization

/// The single writer of a `SQLiteDatabase`: a thread that owns the write connection and folds every job waiting at
/// the moment it wakes into one SQLite transaction (group commit). Every write of the process is a typed job here
/// (see `Job`). Each job runs inside its own savepoint, so one commit's failed precondition rolls back that commit
/// alone; the writer alone records receipts, prunes the change logs, keeps the counters and publishes each feed after
/// `COMMIT`; the acknowledgements go out after that.
final class CommitWriter: Sendable {
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

    let connection: SQLiteConnection
    let configuration: SQLiteDatabase.Configuration
    let catalog: IndexCatalog
    /// Point reads' cache: each group drops the documents it writes before `COMMIT`.
    let cache: DocumentCache
    /// Where committed changes go, after `COMMIT`.
    let feeds: Feeds
    /// Document records appended by the current group's jobs; published only if the group commits. A failing job's
    /// own records are dropped with its savepoint (see `commitGroup(_:)`).
    let pendingRecords = Mutex<[ChangeRecord]>([])
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// The space given up on a full disk so deletes still go through; `nil` keeps none.
    private let reserve: DiskReserve?

    init(
        connection: SQLiteConnection, configuration: SQLiteDatabase.Configuration, catalog: IndexCatalog,
        cache: DocumentCache, feeds: Feeds, reserve: DiskReserve? = nil
    ) {
        self.reserve = reserve
        self.feeds = feeds
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
            job.fail(HearthError(.unavailable, "The server is shutting down."))
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
                        for log in SQLiteDatabase.changeLogs {
                            try log.prune(retention: configuration.changeLogRetention, in: connection)
                        }
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

    /// Runs the jobs in order: migrations alone, the others in group commits between them.
    private func process(_ jobs: [Job]) {
        var group: [Job] = []
        for job in jobs {
            guard case .migrate(let component, let migrations, let completion) = job else {
                group.append(job)
                continue
            }
            if !group.isEmpty { processGroup(group) }
            group.removeAll()
            let result = Result<Void, any Error> {
                try SQLiteMigrator.migrate(connection, component: component, migrations: migrations)
            }
            completion(result)
        }
        if !group.isEmpty { processGroup(group) }
    }

    /// Commits a group; on a full disk, retries its deletes alone in the space the reserve gives up.
    private func processGroup(_ jobs: [Job]) {
        var jobs = jobs
        if let reserve, !reserve.isReleased, state.withLock({ $0.reserveGivenUp }) {
            state.withLock { $0.reserveGivenUp = false }
            configuration.logger.info("disk reserve restored; writes are accepted again")
        }
        if let reserve, reserve.isReleased {
            // The reserve is gone: the disk is full, and what room there is goes to deletes.
            for job in jobs where !job.freesSpace { job.fail(Self.diskFull) }
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
            for job in jobs where !job.freesSpace { job.fail(Self.diskFull) }
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
        for job in jobs { job.fail(failure) }
        counters.withLock { $0.failedCommits += jobs.count }
    }

    /// Runs a group in one transaction and acknowledges its jobs; returns the error when the transaction failed
    /// (nothing of it applied, no job acknowledged).
    private func commitGroup(_ jobs: [Job]) -> (any Error)? {
        var acknowledgements: [@Sendable () -> Void] = []
        acknowledgements.reserveCapacity(jobs.count)
        var afterCommit: [@Sendable () -> Void] = []
        var treeChanges: [TreeChange] = []
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
                    case .importDocuments(let documents, let completion):
                        let result = runImport(documents)
                        switch result {
                        case .success(let count):
                            committed += 1
                            writes += count
                        case .failure:
                            failedJobs += 1
                            failed = true
                        }
                        acknowledgements.append { completion(result) }
                    case .buildIndex(let id, let cursor, let completion):
                        let result = runBuildStep(id: id, after: cursor)
                        acknowledgements.append { [catalog] in
                            if case .success(let step) = result { catalog.record(step, of: id) }
                            completion(result.map(\.next))
                        }
                    case .learnIndex(let definition, let completion):
                        let result = runLearn(definition)
                        switch result {
                        case .success(let id):
                            afterCommit.append { [catalog] in
                                catalog.add(IndexCatalog.Entry(id: id, definition: definition, ready: false))
                            }
                        case .failure: failedJobs += 1
                        }
                        acknowledgements.append { completion(result) }
                    case .tree(let write, let completion):
                        let result = runTree(write)
                        switch result {
                        case .success(let applied):
                            if case .committed(let change) = applied.outcome { treeChanges.append(change) }
                            if applied.writes > 0 {
                                committed += 1
                                writes += applied.writes
                            }
                        case .failure: failedJobs += 1
                        }
                        acknowledgements.append { completion(result.map(\.outcome)) }
                    case .accounts(let body, let completion):
                        let result = Result<Void, any Error> {
                            try connection.savepoint("accounts") { try body(connection) }
                        }
                        acknowledgements.append { completion(result) }
                    case .migrate(_, _, let completion):
                        // (`process(_:)` runs migrations outside any group.)
                        acknowledgements.append { completion(.failure(HearthError.internal("misplaced migration"))) }
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
        feeds.documents.publish(pendingRecords.withLock { $0 })
        if !treeChanges.isEmpty { feeds.tree.publish(treeChanges) }
        for hook in afterCommit { hook() }
        // Completions build responses and wake connections; they run off this thread so the next group commit
        // can start at once. The group is durable already, so their order among themselves does not matter.
        let group = acknowledgements
        DispatchQueue.global(qos: .userInitiated).async {
            for acknowledge in group { acknowledge() }
        }
        return nil
    }

    /// Microseconds since the epoch, strictly increasing across commits so update times order commits.
    func nextCommitTime() -> Timestamp {
        let now = configuration.clock.microseconds
        let micros = state.withLock { state -> Int64 in
            state.lastCommitMicros = max(now, state.lastCommitMicros + 1)
            return state.lastCommitMicros
        }
        return Timestamp(microseconds: micros)
    }
}
