import Foundation
public import HearthCore
public import HearthLog
import HearthSQLite
public import HearthStore

extension SQLiteDatabase {
    /// Settings of the database and of the engines built on it.
    public struct Configuration: Sendable {
        /// The directory holding `hearth.sqlite` (created if missing).
        public var directory: String
        /// Read connections; one per HTTP thread is enough.
        public var readers: Int = 4
        /// The most commits folded into one transaction.
        public var maxCommitsPerTransaction: Int = 256
        /// How many change-log rows to keep; older ones are pruned.
        public var changeLogRetention: Int = 100_000
        /// How many write idempotency keys (`X-Hearth-Write-Id`) to keep with their answers; older ones are pruned.
        public var writeReceiptRetention: Int = WriteReceipts.defaultRetention
        /// The page size of a new database. Small pages suit Hearth's writes, which touch a few rows in each of
        /// several B-trees: every dirtied page is written whole to the write-ahead log.
        public var pageSize: Int? = 1024
        /// The most bytes of documents (stored encoding) one query or batch read may answer; past it the read fails
        /// with `RESOURCE_EXHAUSTED`, and a listing's page ends early.
        public var maxResultBytes: Int = 64 * 1024 * 1024
        /// Where the store reports what it survived (a failed checkpoint, a full disk); silent by default.
        public var logger = Logger(level: .error) { _ in }
        /// Space held back on the disk (`hearth.reserve`) so deletes work once it is full; 0 keeps none.
        public var diskReserveBytes: Int = 16 << 20
        /// How often the checkpointer copies the write-ahead log into the database file.
        public var checkpointInterval: Duration = .milliseconds(500)
        /// The write-ahead log size past which the writer rewinds it (see `Checkpointer`). A rewind under steady
        /// writes stops commits while the writer copies the last frames and syncs both files (0.1 s measured under the
        /// create benchmark), so it is a safety valve against a log that would otherwise grow until the disk is full,
        /// not a size to run at; a load with pauses rewinds the log by itself at every pause.
        public var logRestartBytes: Int = 1 << 30
        /// The writer connection's page cache, in KiB. Random document IDs put each write on a different leaf of
        /// every B-tree; a cache that holds the trees' working set spares the writer a `pread` per leaf it misses
        /// (with 16 MiB, about 7 per create once a benchmark's collection passed 100 MB; with 64 MiB, under 2).
        public var writerCacheKiB: Int = 64 << 10
        /// The most documents the point-read cache holds, and about how many bytes of theirs; 0 disables it.
        public var documentCacheEntries: Int = 65_536
        /// See `documentCacheEntries`.
        public var documentCacheBytes: Int = 32 << 20
        /// Declared composite indexes (from `hearth.indexes.json`); new ones are built in the background.
        public var indexes: [IndexDefinition] = []
        /// Development mode: a query whose composite index is missing is answered by scanning, as the emulator
        /// answers it, and the index is learned (kept across restarts in dev mode) and built in the background.
        public var learnsIndexes = false
        /// Called once per index learned, with its definition (the server logs it).
        public var onIndexLearned: (@Sendable (IndexDefinition) -> Void)? = nil
        /// Holds index builds between steps (tests); `nil` builds without waiting.
        public var indexBuildGate: IndexBuildGate? = nil
        /// How many documents one step of an index build indexes (one writer job, between commits).
        public var indexBuildStepDocuments: Int = 500
        /// How long an idle transaction lives, in seconds (Firestore: 60).
        public var transactionIdleTimeout: Double = 60
        /// The oldest a transaction may be and still commit, in seconds (Firestore: 270).
        public var transactionMaxAge: Double = 270
        /// The wall clock; tests move it.
        public var clock: WallClock = .system

        var transactionLimits: TransactionRegistry<SQLiteConnection>.Limits {
            var limits = TransactionRegistry<SQLiteConnection>.Limits()
            limits.idleTimeout = transactionIdleTimeout
            limits.maxAge = transactionMaxAge
            return limits
        }

        /// Creates a configuration for a data directory.
        public init(directory: String) {
            self.directory = directory
        }
    }

}
