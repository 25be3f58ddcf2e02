internal import CHearthSQLite
internal import CSQLite

extension SQLiteConnection {
    /// How a checkpoint treats the writer and the readers (`sqlite3_wal_checkpoint_v2`).
    public enum CheckpointMode: Sendable {
        /// Copies what it can without waiting for anyone; the log keeps growing while writes keep coming.
        case passive
        /// Also waits (the busy timeout) for the writer lock and for readers still using the log, then makes the
        /// next write start the log from its beginning again, so the file stops growing.
        case restart
        /// As `restart`, and empties the log file.
        case truncate
    }

    /// What a checkpoint found and did, in WAL frames.
    public struct CheckpointOutcome: Sendable, Equatable {
        /// Frames in the log when the checkpoint ran (0 when it could not run at all).
        public var logFrames: Int
        /// Frames of the log now copied into the database file.
        public var checkpointedFrames: Int
        /// Whether the checkpoint ran to the end of what its mode promises; `false` under `restart` or `truncate`
        /// means a reader or the writer held on past the busy timeout, and it did what `passive` would.
        public var isComplete: Bool
        /// SQLite's result code when the checkpoint failed for a reason other than a busy lock (a full disk, an I/O
        /// error); `nil` otherwise.
        public var failure: Int32? = nil
    }

    /// Runs a checkpoint of the main database. `busyTimeout`, when given, replaces the connection's own for this
    /// call, so a caller that must not stall for long (the single writer) can give up quickly.
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode, busyTimeout: Duration? = nil) -> CheckpointOutcome {
        guard let db else { return CheckpointOutcome(logFrames: 0, checkpointedFrames: 0, isComplete: false) }
        if let busyTimeout { sqlite3_busy_timeout(db, Self.milliseconds(busyTimeout)) }
        defer { if busyTimeout != nil { sqlite3_busy_timeout(db, Self.milliseconds(options.busyTimeout)) } }
        let code: Int32
        switch mode {
        case .passive: code = SQLITE_CHECKPOINT_PASSIVE
        case .restart: code = SQLITE_CHECKPOINT_RESTART
        case .truncate: code = SQLITE_CHECKPOINT_TRUNCATE
        }
        var logFrames: Int32 = 0
        var checkpointedFrames: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, nil, code, &logFrames, &checkpointedFrames)
        return CheckpointOutcome(
            logFrames: Int(max(0, logFrames)), checkpointedFrames: Int(max(0, checkpointedFrames)),
            isComplete: rc == SQLITE_OK && logFrames == checkpointedFrames,
            failure: rc == SQLITE_OK || rc & 0xFF == SQLITE_BUSY || rc & 0xFF == SQLITE_LOCKED ? nil : rc)
    }

    /// Flushes the database file's written pages to disk (`fsync`), outside any checkpoint. A checkpoint that rewinds
    /// the log must first make the database file durable; doing that ahead of time, on another thread, leaves the
    /// rewinding checkpoint only the pages written since. Returns `false` if SQLite reported an error.
    @discardableResult
    public func syncDatabaseFile() -> Bool {
        guard let db else { return false }
        return hearth_sqlite_sync_main_file(db) == SQLITE_OK
    }

    /// A duration as SQLite's busy timeout: whole milliseconds, clamped to `Int32`.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let total = overflow ? Int64.max : milliseconds + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }
}
