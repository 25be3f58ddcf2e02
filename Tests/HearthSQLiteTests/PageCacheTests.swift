import HearthSQLite
import Testing

/// Hearth's page cache (`page_cache.h`) renumbers the pages a B-tree split parks under the locking page number.
/// Random-key inserts into small pages split constantly; the data must come back exactly, on the writer and on
/// another connection, and the database must pass SQLite's own integrity check.
@Suite struct PageCacheTests {
    /// A deterministic generator, so a failure reproduces.
    private struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func key() -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            return String((0..<20).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] })
        }
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

            var random = SplitMix(state: 42)
            var expected: [String: Int64] = [:]
            let insert = try db.prepare("INSERT INTO t(k, v) VALUES (?, ?)")
            for group in 0..<600 {
                try db.transaction(.immediate) {
                    for _ in 0..<16 {
                        let key = random.key()
                        let value = Int64(bitPattern: random.next() % 1_000_000)
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
