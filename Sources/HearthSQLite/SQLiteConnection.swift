internal import CHearthSQLite
internal import CSQLite

/// One SQLite database connection with a cache of prepared statements.
///
/// Threading invariant: a connection is used by one thread at a time. It is opened with `SQLITE_OPEN_NOMUTEX`, so
/// SQLite does not lock it, and its statement cache is unsynchronized; the owner provides the exclusion — the store's
/// single writer thread, or `SQLiteConnectionPool`, which lends each reader to one caller at a time. It is
/// `Sendable` only so such an owner can hand it from thread to thread.
public final class SQLiteConnection: @unchecked Sendable {
    /// `nil` once closed.
    var db: OpaquePointer?
    /// Prepared statements by SQL text.
    var cache: [String: SQLiteStatement] = [:]
    /// Prepared statements of compile-time SQL texts, by the text's address (see `prepare(static:)`).
    var staticCache: [UInt: SQLiteStatement] = [:]
    /// The path the connection was opened with.
    public let path: String
    /// The options the connection was opened with.
    public let options: Options

    /// Opens (or creates) the database at `path` — `":memory:"` for a private in-memory database — and applies
    /// `options`.
    public init(path: String, options: Options = .init()) throws(SQLiteError) {
        self.path = path
        self.options = options
        _ = Self.libraryConfigured
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if options.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if options.create { flags |= SQLITE_OPEN_CREATE }
        }
        var handle: OpaquePointer?
        let vfs = options.batchesWALWrites && Self.batchedWALRegistered ? hearth_batched_wal_vfs_name() : nil
        let rc = sqlite3_open_v2(path, &handle, flags, vfs)
        guard rc == SQLITE_OK, let handle else {
            let error = SQLiteError(rc: rc, db: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        db = handle
        do {
            try configure()
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Whether the batched-WAL VFS is available; without it, `batchesWALWrites` connections use the default VFS.
    private static let batchedWALRegistered: Bool = {
        hearth_sqlite_register_batched_wal() == SQLITE_OK
    }()

    /// Process-wide SQLite settings, applied once before the first connection opens.
    private static let libraryConfigured: (statisticsOff: Bool, pageCache: Bool) = (
        hearth_sqlite_disable_memory_statistics() == SQLITE_OK, hearth_sqlite_install_page_cache() == SQLITE_OK
    )

    /// Whether this process's connections use Hearth's page cache (`CHearthSQLite/page_cache.c`), which keeps a B-tree page split
    /// from making the next commit scan the whole cache. False when something else opened a SQLite database in the
    /// process before the first `SQLiteConnection` did: SQLite then keeps its default cache, correct but slower.
    public static var usesHearthPageCache: Bool { libraryConfigured.pageCache }

    /// How many times a page split parked a page under the locking page number since the process started; each
    /// used to cost the following commit a scan of the whole page cache.
    public static var pagesParkedBySplits: UInt64 { UInt64(hearth_sqlite_parked_page_count()) }

    private func configure() throws(SQLiteError) {
        sqlite3_busy_timeout(db, Self.milliseconds(options.busyTimeout))

        // The page size only takes effect on a new, empty database, so it must come before anything writes.
        var pragmas = options.pageSize.map { "PRAGMA page_size = \($0);\n" } ?? ""
        pragmas += """
            PRAGMA synchronous = \(options.synchronous.rawValue);
            PRAGMA foreign_keys = \(options.foreignKeys ? "ON" : "OFF");
            PRAGMA cache_size = \(-options.cacheSizeKiB);
            PRAGMA mmap_size = \(options.mmapSize);
            """
        if options.journalModeWAL && !options.readOnly {
            // In-memory databases answer "memory" and stay as they are, which is fine.
            pragmas += "\nPRAGMA journal_mode = WAL;"
        }
        try execute(pragmas)
    }

    /// Finalizes the cached statements and closes the database. Safe to call twice; `deinit` calls it too.
    ///
    /// Statements still referenced elsewhere (evicted from the cache) keep SQLite's connection alive until they are
    /// released, as `sqlite3_close_v2` allows, so closing never frees memory a statement still points at.
    public func close() {
        guard let db else { return }
        for statement in cache.values { statement.finalize() }
        for statement in staticCache.values { statement.finalize() }
        cache.removeAll()
        staticCache.removeAll()
        sqlite3_close_v2(db)
        self.db = nil
    }

    /// Whether `close()` has run.
    public var isClosed: Bool { db == nil }

    /// The open handle, or the error every call on a closed connection reports.
    func handle(sql: String? = nil) throws(SQLiteError) -> OpaquePointer {
        guard let db else { throw .misuse("the connection is closed", sql: sql) }
        return db
    }

    /// Rows changed by the most recent `INSERT`, `UPDATE` or `DELETE`.
    public var changes: Int {
        guard let db else { return 0 }
        return Int(sqlite3_changes64(db))
    }

    /// The rowid of the most recent successful `INSERT` on this connection.
    public var lastInsertRowID: Int64 {
        guard let db else { return 0 }
        return sqlite3_last_insert_rowid(db)
    }

    /// Whether a transaction is open (SQLite is out of autocommit mode).
    public var isInTransaction: Bool { db != nil && sqlite3_get_autocommit(db) == 0 }

    /// `PRAGMA user_version`: the schema version `SQLiteMigrator` maintains.
    public var userVersion: Int {
        get throws(SQLiteError) {
            try fetchOne("PRAGMA user_version")?.int(0) ?? 0
        }
    }

    /// Sets `PRAGMA user_version`; it takes no bind parameters, hence the integer in the SQL text.
    public func setUserVersion(_ version: Int) throws(SQLiteError) {
        try execute("PRAGMA user_version = \(version)" as String)
    }
}
