import HearthSQLite
import Testing

/// Hearth's page cache (`page_cache.h`) renumbers the pages a B-tree split parks under the locking page number.
/// Random-key inserts into small pages split constantly; the data must come back exactly, on the writer and on
/// another connection, and the database must pass SQLite's own integrity check.
@Suite struct PageCacheTests {
    /// The `n`th key: `n` times an odd 64-bit constant (a bijection that scatters consecutive numbers across the key
    /// space), in hex, so inserts land all over the B-tree as random document IDs do, and a failure reproduces.
    private func key(_ n: Int) -> String {
        let scattered = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
        return String(scattered, radix: 16) + "-" + String(n)
    }

    @Test func randomInsertsThatSplitPagesKeepEveryRowAndAnIntactDatabase() throws {
        try withTemporaryDatabase { path in
            var options = SQLiteConnection.Options()
            options.pageSize = 1024
            options.batchesWALWrites = true
            let db = try SQLiteConnection(path: path, options: options)
            try db.execute("CREATE TABLE t(k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")
            try db.execute("CREATE INDEX t_by_v ON t(v, k)")
            var readOptions = SQLiteConnection.Options()
            readOptions.readOnly = true
            let reader = try SQLiteConnection(path: path, options: readOptions)
            let parkedBefore = SQLiteConnection.pagesParkedBySplits

            var next = 0
            var expected: [String: Int64] = [:]
            let insert = try db.prepare("INSERT INTO t(k, v) VALUES (?, ?)")
            for group in 0..<600 {
                try db.transaction(.immediate) {
                    for _ in 0..<16 {
                        next += 1
                        let key = key(next)
                        let value = Int64(next % 1000)
                        try insert.run([.text(key), .blob(Array("\(value)-\(key)".utf8))])
                        expected[key] = value
                    }
                    // Deletes too, so pages also merge and free pages are reused by later splits.
                    if group % 3 == 0, let victim = expected.keys.first {
                        try db.execute("DELETE FROM t WHERE k = \(victim)")
                        expected[victim] = nil
                    }
                }
                if group % 50 == 0 {
                    #expect(try reader.fetchOne("SELECT COUNT(*) FROM t")?.int(0) == expected.count)
                }
            }

            // The cache is process-wide and installs only if no other code opened SQLite first; in the whole suite
            // the SDK's tests may have (its LocalSQLite opens SQLite directly), and then only the data is checked.
            if SQLiteConnection.usesHearthPageCache {
                #expect(SQLiteConnection.pagesParkedBySplits > parkedBefore)
            }
            for connection in [db, reader] {
                #expect(try connection.fetchOne("PRAGMA integrity_check")?.string(0) == "ok")
                let rows = try connection.fetchAll("SELECT k, v FROM t ORDER BY k")
                #expect(rows.count == expected.count)
                var mismatches = 0
                for row in rows {
                    guard let key = row.string(0), let value = expected[key], case .blob(let bytes) = row[1],
                        bytes == Array("\(value)-\(key)".utf8)
                    else {
                        mismatches += 1
                        continue
                    }
                }
                #expect(mismatches == 0)
            }
        }
    }
}
