extension SQLiteConnection {
    /// How hard SQLite works to make a commit durable (`PRAGMA synchronous`).
    public enum Synchronous: String, Sendable {
        /// No syncs: an OS crash or power loss can corrupt or lose recent commits.
        case off = "OFF"
        /// In WAL mode, syncs at checkpoints only: a power loss may lose the last commits, but a killed process
        /// loses nothing, because committed frames are already in the OS's file cache.
        case normal = "NORMAL"
        /// Syncs the WAL at every commit: survives power loss.
        case full = "FULL"
        /// As `full`, and also syncs the directory after a journal is unlinked.
        case extra = "EXTRA"
    }

    /// Connection settings, applied when the connection opens.
    public struct Options: Sendable {
        /// Opens with `SQLITE_OPEN_READONLY`; writes then fail with `SQLITE_READONLY`.
        public var readOnly: Bool = false
        /// Creates the file when missing (ignored when read-only).
        public var create: Bool = true
        /// How long to wait for another connection's lock before failing with `SQLITE_BUSY`.
        public var busyTimeout: Duration = .seconds(5)
        /// Switches the database to write-ahead logging so readers never block the writer (ignored when read-only:
        /// the mode is persistent, set by the writer).
        public var journalModeWAL: Bool = true
        /// Commit durability; see `Synchronous`.
        public var synchronous: Synchronous = .normal
        /// The page size for a database this connection creates (`PRAGMA page_size`); `nil` keeps SQLite's default.
        /// Smaller pages write fewer bytes to the write-ahead log when commits touch scattered rows.
        public var pageSize: Int?
        /// Enforces `REFERENCES` clauses; SQLite leaves them off unless asked, per connection.
        public var foreignKeys: Bool = true
        /// Page cache size per connection, in KiB.
        public var cacheSizeKiB: Int = 16384
        /// Writes each transaction's write-ahead-log frames with one `write(2)` instead of two per page (the
        /// `hearth-batched-wal` VFS in CHearthSQLite/batched_wal.c); a commit still returns only after its frames reached
        /// the operating system. For the one connection that writes: others read through the default VFS.
        public var batchesWALWrites: Bool = false
        /// Bytes of the file to memory-map for reads; 0 disables mmap.
        public var mmapSize: Int = 0
        /// How many prepared statements `prepare` keeps; past that the cache is emptied and refills with what is
        /// in use, so a stream of one-off SQL texts cannot grow memory without bound.
        public var statementCacheCapacity: Int = 512

        /// The defaults above.
        public init() {}
    }

    /// The lock a transaction takes at `BEGIN`.
    public enum TransactionKind: Sendable {
        /// Locks on first read or write; a later write may fail with `SQLITE_BUSY` if another writer got there.
        case deferred
        /// Takes the write lock at `BEGIN`: the usual choice for a write transaction.
        case immediate
        /// In WAL mode the same as `immediate`; otherwise also blocks readers.
        case exclusive

        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED TRANSACTION"
            case .immediate: "BEGIN IMMEDIATE TRANSACTION"
            case .exclusive: "BEGIN EXCLUSIVE TRANSACTION"
            }
        }
    }
}
