import Foundation
import HearthCore
import HearthSQLite

/// The storage baseline: the rows Hearth writes for each created document, inserted straight through HearthSQLite
/// with the server's durability setting (WAL, `synchronous=NORMAL`), no HTTP, no JSON parsing, one thread.
///
/// Per document: one `documents` row holding the same `fields` JSON bytes the server stores, the 3 automatic
/// index entries of its 3 fields (computed once with HearthCore's `IndexEntry`, as the server computes them), and
/// one change-log row — the tables of the SQLite store's schema, declared here independently so the baseline does
/// not move when the store does. SQLite's automatic checkpoint stays on, so checkpoints run inside commits on the
/// inserting thread (the server moves them to a thread of its own).
struct SQLiteBaseline: Sendable {
    /// One measurement: documents inserted in `seconds`, `perTransaction` at a time.
    struct Result: Sendable {
        var perTransaction: Int
        var documents: Int
        var seconds: Double
        var documentsPerSecond: Double { Double(documents) / seconds }
    }

    private static let schema = """
        CREATE TABLE documents(
            collection TEXT NOT NULL, id TEXT NOT NULL, collection_id TEXT NOT NULL, name_key BLOB NOT NULL,
            fields BLOB NOT NULL, create_time INTEGER NOT NULL, update_time INTEGER NOT NULL,
            PRIMARY KEY (collection, id)
        ) WITHOUT ROWID;
        CREATE INDEX documents_by_group ON documents(collection_id, name_key);
        CREATE TABLE index_entries(
            collection TEXT NOT NULL, field TEXT NOT NULL, kind INTEGER NOT NULL, key BLOB NOT NULL, id TEXT NOT NULL,
            PRIMARY KEY (collection, field, kind, key, id)
        ) WITHOUT ROWID;
        CREATE TABLE changes(
            sequence INTEGER PRIMARY KEY AUTOINCREMENT, commit_time INTEGER NOT NULL, path TEXT NOT NULL,
            before_fields BLOB, before_create_time INTEGER, before_update_time INTEGER,
            after_fields BLOB, after_create_time INTEGER, after_update_time INTEGER
        );
        """

    /// Where the database files go (one fresh file per measurement).
    let directory: URL

    /// The version of the SQLite library linked in.
    func sqliteVersion() -> String {
        let connection = try? SQLiteConnection(path: ":memory:")
        return (try? connection?.fetchOne("SELECT sqlite_version()")?.string(0)) ?? "?"
    }

    /// How document IDs are chosen, to match the HTTP load the figure is compared with.
    enum IDs: Sendable {
        /// Random 20-character IDs, as the server picks for `POST …/documents/{collection}`.
        case automatic
        /// `{nonce}t1r{transaction}w{n}`, as the commit load's Lua script names its documents.
        case commitScript
        /// `d0000001`, `d0000002`, …, as the transfer benchmark's export names them.
        case sequential
    }

    /// Inserts documents for `duration` (or until `limit` are in), `perTransaction` per `BEGIN IMMEDIATE … COMMIT`,
    /// into a fresh database (`baseline-{perTransaction}.sqlite` in ``directory``).
    func measure(perTransaction: Int, ids idScheme: IDs, duration: Duration, limit: Int? = nil) throws -> Result {
        let url = directory.appendingPathComponent("baseline-\(perTransaction).sqlite")
        var options = SQLiteConnection.Options()
        options.journalModeWAL = true
        options.synchronous = .normal
        let db = try SQLiteConnection(path: url.path, options: options)
        defer { db.close() }
        try db.execute(Self.schema)

        let fields: [String: Value] = ["title": .string("hello"), "n": .integer(42), "done": .boolean(false)]
        let fieldsBytes = Value.encodeFields(fields)
        let entries = IndexEntry.entries(for: fields)
        var autoIDs = AutoIDs()
        let nonce = String(UUID().uuidString.prefix(8)).lowercased()
        var transactions = 0

        log("raw SQLite: \(perTransaction) document(s) per transaction for \(duration)")
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + duration
        var documents = 0
        repeat {
            transactions += 1
            try db.transaction(.immediate) {
                for number in 1...perTransaction {
                    let id =
                        switch idScheme {
                        case .automatic: autoIDs.next()
                        case .commitScript: "\(nonce)t1r\(transactions)w\(number)"
                        case .sequential: TransferBenchmark.documentID(documents + number)
                        }
                    let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
                    try db.execute(
                        """
                        INSERT INTO documents(collection, id, collection_id, name_key, fields, create_time, update_time)
                        VALUES ('bench', \(id), 'bench', \(IndexKey.encode(segments: ["bench", id])), \(fieldsBytes),
                                \(now), \(now))
                        """)
                    for entry in entries {
                        try db.execute(
                            """
                            INSERT INTO index_entries(collection, field, kind, key, id)
                            VALUES ('bench', \(entry.field), \(entry.kind.rawValue), \(entry.key), \(id))
                            """)
                    }
                    try db.execute(
                        """
                        INSERT INTO changes(commit_time, path, after_fields, after_create_time, after_update_time)
                        VALUES (\(now), \("bench/" + id), \(fieldsBytes), \(now), \(now))
                        """)
                }
            }
            documents += perTransaction
        } while clock.now < deadline && documents < (limit ?? .max)
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(perTransaction: perTransaction, documents: documents, seconds: seconds)
    }
}

/// Firestore-style automatic document IDs: 20 characters from `[A-Za-z0-9]`, from a SplitMix64 generator seeded
/// once, so the baseline does not spend its time in `getrandom` (one system call per draw of the system generator).
struct AutoIDs {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    private var state = UInt64.random(in: .min ... .max)

    private mutating func nextWord() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> String {
        var bytes = [UInt8](repeating: 0, count: 20)
        for index in bytes.indices {
            bytes[index] = Self.alphabet[Int(nextWord() % UInt64(Self.alphabet.count))]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
