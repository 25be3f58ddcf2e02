internal import CSQLite

extension SQLiteConnection {
    /// Runs `body` between `BEGIN` and `COMMIT`; if `body` or `COMMIT` throws, rolls back and rethrows that error.
    /// Transactions do not nest: use `savepoint` inside one.
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try executeCached(kind.beginSQL)
        let result: T
        do {
            result = try body()
            try executeCached("COMMIT TRANSACTION")
        } catch {
            rollbackIfOpen()
            throw error
        }
        return result
    }

    /// Runs `body` inside `SAVEPOINT name`; on a throw, rolls back to the savepoint and releases it, so the
    /// enclosing transaction continues without `body`'s changes — one failed commit inside a group commit.
    public func savepoint<T>(_ name: String = "sp", _ body: () throws -> T) throws -> T {
        let quoted = SQLQuery.quoteIdentifier(name)
        try executeCached("SAVEPOINT " + quoted)
        let result: T
        do {
            result = try body()
            try executeCached("RELEASE " + quoted)
        } catch {
            // Fails only if SQLite already rolled the whole transaction back (e.g. SQLITE_FULL); the original
            // error is the one worth reporting.
            try? executeCached("ROLLBACK TO " + quoted)
            try? executeCached("RELEASE " + quoted)
            throw error
        }
        return result
    }

    /// Some errors (I/O, full disk) end the transaction inside SQLite; a second ROLLBACK would only add noise.
    func rollbackIfOpen() {
        guard isInTransaction else { return }
        try? executeCached("ROLLBACK TRANSACTION")
    }
}
