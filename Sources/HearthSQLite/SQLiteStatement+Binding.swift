internal import CHearthSQLite
internal import CSQLite

/// Parameter indexes are 1-based, as in SQLite. Bind failures (index out of range, value too big) are deferred to the
/// next `step()`, which throws them.
extension SQLiteStatement {
    /// Binds one value.
    public func bind(_ value: SQLiteValue, at index: Int32) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let value): bind(value, at: index)
        case .real(let value): bind(value, at: index)
        case .text(let value): bind(value, at: index)
        case .blob(let value): bind(value, at: index)
        }
    }

    /// Binds `values` to parameters 1…n; the count must match the statement's parameters, because a mismatch is
    /// always a bug (SQLite would silently treat missing parameters as `NULL`).
    public func bind(_ values: [SQLiteValue]) {
        if let error = parameterCountError(values.count) {
            if pendingError == nil { pendingError = error }
            return
        }
        for (offset, value) in values.enumerated() {
            bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds `NULL`.
    public func bindNull(at index: Int32) {
        record(sqlite3_bind_null(handle, index), index: index)
    }

    /// Binds an integer.
    public func bind(_ value: Int64, at index: Int32) {
        record(sqlite3_bind_int64(handle, index, value), index: index)
    }

    /// Binds an integer.
    public func bind(_ value: Int, at index: Int32) {
        bind(Int64(value), at: index)
    }

    /// Binds 1 or 0.
    public func bind(_ value: Bool, at index: Int32) {
        bind(Int64(value ? 1 : 0), at: index)
    }

    /// Binds a real.
    public func bind(_ value: Double, at index: Int32) {
        record(sqlite3_bind_double(handle, index, value), index: index)
    }

    /// Binds text; SQLite copies the UTF-8 bytes once, straight from the string's storage.
    public func bind(_ value: String, at index: Int32) {
        var value = value
        let rc = value.withUTF8 { bytes in
            bindText(UnsafeRawBufferPointer(bytes), at: index, destructor: hearth_sqlite_transient())
        }
        record(rc, index: index)
    }

    /// Binds a blob; SQLite copies the bytes.
    public func bind(_ value: [UInt8], at index: Int32) {
        let rc = value.withUnsafeBytes { bytes in
            bindBlob(bytes, at: index, destructor: hearth_sqlite_transient())
        }
        record(rc, index: index)
    }

    /// Binds a blob from memory the caller owns; SQLite copies the bytes, so the buffer may be freed afterwards.
    public func bind(_ bytes: UnsafeRawBufferPointer, at index: Int32) {
        record(bindBlob(bytes, at: index, destructor: hearth_sqlite_transient()), index: index)
    }

    // MARK: - Raw binding shared with the scoped (no-copy) path

    /// A `nil` base address would bind `NULL`, so empty text is bound as a copied empty C string: the bridged
    /// literal lives only for the call, hence the transient destructor.
    func bindText(
        _ bytes: UnsafeRawBufferPointer, at index: Int32, destructor: sqlite3_destructor_type?
    ) -> Int32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return sqlite3_bind_text(handle, index, "", 0, hearth_sqlite_transient())
        }
        return sqlite3_bind_text64(
            handle, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count), destructor,
            UInt8(SQLITE_UTF8))
    }

    /// A `nil` base address would bind `NULL`, so an empty blob is bound as a zero-length zeroblob.
    func bindBlob(
        _ bytes: UnsafeRawBufferPointer, at index: Int32, destructor: sqlite3_destructor_type?
    ) -> Int32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return sqlite3_bind_zeroblob(handle, index, 0)
        }
        return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), destructor)
    }

    /// Keeps the first failure for `step()` to throw.
    func record(_ rc: Int32, index: Int32) {
        guard rc != SQLITE_OK, pendingError == nil else { return }
        if handle == nil {
            pendingError = .misuse("the statement's connection is closed", sql: sql)
            return
        }
        var error = SQLiteError(rc: rc, db: sqlite3_db_handle(handle), sql: sql)
        error.message = "binding parameter \(index): \(error.message)"
        pendingError = error
    }

    /// A `SQLITE_RANGE` error when the number of values differs from the number of parameters.
    func parameterCountError(_ count: Int) -> SQLiteError? {
        let expected = Int(parameterCount)
        guard count != expected else { return nil }
        return SQLiteError(
            extendedCode: SQLITE_RANGE, message: "expected \(expected) bound values, got \(count)", sql: sql)
    }
}
