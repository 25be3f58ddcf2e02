internal import CSQLite

/// Preparing, caching and running statements.
///
/// `execute(_: String)` and `prepare(_: String)` are disfavored overloads on purpose: without that, Swift would pick
/// them for an interpolated literal (String is the default literal type) and paste values into the SQL. With it, any
/// literal — interpolated or not — becomes an `SQLQuery` with bind parameters, and only a `String` *value* (schema
/// scripts, generated SQL) takes the raw path.
extension SQLiteConnection {
    /// Runs one or more `;`-separated statements without parameters: schema scripts and migrations.
    @_disfavoredOverload
    public func execute(_ sql: String) throws(SQLiteError) {
        let db = try handle(sql: sql)
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(rc: rc, db: db, sql: sql) }
    }

    /// Runs one statement with its bindings to completion, using the statement cache. A literal without bindings may
    /// hold several statements; it then runs as a script.
    public func execute(_ query: SQLQuery) throws(SQLiteError) {
        switch try cachedStatement(query.sql) {
        case .statement(let statement):
            try statement.run(query.bindings)
        case .script where query.bindings.isEmpty:
            try execute(query.sql)
        case .script:
            throw .misuse("a query with bindings must be a single statement", sql: query.sql)
        case .empty:
            break
        }
    }

    /// Returns the cached prepared statement for `sql`, reset and unbound, preparing it on first use. Hot paths call
    /// this every time instead of keeping statements: the lookup is one hash of the SQL text.
    @_disfavoredOverload
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        switch try cachedStatement(sql) {
        case .statement(let statement):
            return statement
        case .script:
            throw .misuse("prepare takes a single statement", sql: sql)
        case .empty:
            throw .misuse("no SQL statement to prepare", sql: sql)
        }
    }

    /// As `prepare(_:)`, for SQL fixed at compile time: the statement is found by the text's address, which is
    /// stable for the life of the process, instead of by hashing the text. The write path runs several statements
    /// per document, and hashing their text cost more than binding their values.
    public func prepare(static sql: StaticString) throws(SQLiteError) -> SQLiteStatement {
        // A one-character literal may be stored as a scalar, without an address (`utf8Start` would trap).
        guard sql.hasPointerRepresentation else { return try prepare(sql.description) }
        let key = UInt(bitPattern: sql.utf8Start)
        if let statement = staticCache[key] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql.description)
        staticCache[key] = statement
        return statement
    }

    /// Returns the cached statement for the query's SQL with its bindings already bound, ready for `step()`.
    /// (`run` and `rows` take their own bindings and would replace these.)
    public func prepare(_ query: SQLQuery) throws(SQLiteError) -> SQLiteStatement {
        let statement = try prepare(query.sql)
        if !query.bindings.isEmpty { statement.bind(query.bindings) }
        return statement
    }

    /// Runs a query and returns every row.
    public func fetchAll(_ query: SQLQuery) throws(SQLiteError) -> [SQLiteRow] {
        try prepare(query.sql).rows(query.bindings)
    }

    /// Runs a query and returns its first row, or `nil` when there is none; later rows are not computed.
    public func fetchOne(_ query: SQLQuery) throws(SQLiteError) -> SQLiteRow? {
        let statement = try prepare(query.sql)
        defer { statement.reset() }
        return try statement.withBindings(query.bindings) { () throws(SQLiteError) in
            try statement.step() ? statement.row() : nil
        }
    }

    /// Runs a query and calls `body` with the statement positioned on each row, for reading columns in place
    /// (`withBlob`) without copying rows out.
    public func forEachRow(_ query: SQLQuery, _ body: (SQLiteStatement) throws -> Void) throws {
        try prepare(query.sql).forEachRow(query.bindings, body)
    }

    /// Runs a cached, parameterless statement; the transaction helpers use it so `BEGIN`/`COMMIT` are compiled once.
    func executeCached(_ sql: String) throws(SQLiteError) {
        try execute(SQLQuery(unsafeSQL: sql))
    }

    /// What `sql` compiled to.
    enum Prepared {
        case statement(SQLiteStatement)
        /// More than one statement: not cached, run with `sqlite3_exec`.
        case script
        /// Only whitespace and comments.
        case empty
    }

    /// Looks `sql` up in the cache, preparing and caching it on a miss.
    func cachedStatement(_ sql: String) throws(SQLiteError) -> Prepared {
        if let statement = cache[sql] {
            statement.reset()
            return .statement(statement)
        }
        let db = try handle(sql: sql)
        var raw: OpaquePointer?
        var hasMore = false
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(
                db, text, Int32(clamping: sql.utf8.count + 1), UInt32(SQLITE_PREPARE_PERSISTENT), &raw, &tail)
            if rc == SQLITE_OK, let tail { hasMore = !SQLScript.isTrivia(tail) }
            return rc
        }
        guard rc == SQLITE_OK else { throw SQLiteError(rc: rc, db: db, sql: sql) }
        guard let raw else { return .empty }
        guard !hasMore else {
            sqlite3_finalize(raw)
            return .script
        }
        let statement = SQLiteStatement(handle: raw, sql: sql)
        if cache.count >= options.statementCacheCapacity { cache.removeAll(keepingCapacity: true) }
        if options.statementCacheCapacity > 0 { cache[sql] = statement }
        return .statement(statement)
    }
}
