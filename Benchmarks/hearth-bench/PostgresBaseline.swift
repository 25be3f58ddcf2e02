import Foundation
import HearthCore
import HearthPostgres
import Synchronization

/// The PostgreSQL storage baseline, pgbench-style: the rows Hearth's PostgreSQL engine writes for each created
/// document, inserted straight through libpq (HearthPostgres) into a database of its own on the same cluster and with
/// the same durability (`synchronous_commit=on`), no HTTP, no JSON parsing. Also point reads by primary key.
///
/// Per document: one `documents` row with the same `fields` bytes, the 3 automatic index entries of its 3 fields
/// (HearthCore's `IndexEntry`, as the server computes them) and one change-log row, each table's rows of a
/// transaction in one multi-row `INSERT` as the engine batches them. The tables are declared here, independently of
/// the engine's schema, so the baseline does not move when the engine does; the engine's per-commit bookkeeping
/// (its commit-clock row, receipts) is not part of it.
struct PostgresBaseline {
    /// One measurement: documents inserted (or read) in `seconds` by `clients` connections, `perTransaction` at a
    /// time.
    struct Result: Sendable {
        var perTransaction: Int
        var clients: Int
        var documents: Int
        var seconds: Double
        var documentsPerSecond: Double { Double(documents) / seconds }
    }

    private static let schema = [
        """
        CREATE TABLE documents(
            collection text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL, fields bytea NOT NULL,
            create_time int8 NOT NULL, update_time int8 NOT NULL, collection_id text COLLATE "C", name_key bytea,
            PRIMARY KEY (collection, id))
        """,
        "CREATE INDEX documents_by_group ON documents(collection_id, name_key)",
        """
        CREATE TABLE index_entries(
            collection text COLLATE "C" NOT NULL, field text COLLATE "C" NOT NULL, kind int4 NOT NULL,
            key bytea NOT NULL, id text COLLATE "C" NOT NULL, PRIMARY KEY (collection, field, kind, key, id))
        """,
        """
        CREATE TABLE changes(
            sequence int8 PRIMARY KEY, commit_time int8 NOT NULL, path text NOT NULL, before_fields bytea,
            before_create_time int8, before_update_time int8, after_fields bytea, after_create_time int8,
            after_update_time int8)
        """,
    ]

    let cluster: BenchPostgresCluster

    /// Inserts documents for `duration` from `clients` connections at once (each on a thread of its own),
    /// `perTransaction` per `BEGIN … COMMIT`, into a fresh database.
    func measureInserts(perTransaction: Int, clients: Int, duration: Duration) throws -> Result {
        let database = "baseline_\(perTransaction)_\(clients)"
        try cluster.createDatabase(database)
        let setup = try PostgresConnection(conninfo: cluster.conninfo(database: database))
        for statement in Self.schema { try setup.query(statement) }
        setup.close()
        log("raw PostgreSQL: \(perTransaction) document(s) per transaction, \(clients) client(s) for \(duration)")

        let fields: [String: Value] = ["title": .string("hello"), "n": .integer(42), "done": .boolean(false)]
        let fieldsBytes = Value.encodeFields(fields)
        let entries = IndexEntry.entries(for: fields)
        let sequence = Atomic<Int64>(0)
        let conninfo = cluster.conninfo(database: database)
        let (documents, seconds) = try Self.onClients(clients, duration: duration) { client, deadline in
            let connection = try PostgresConnection(conninfo: conninfo)
            defer { connection.close() }
            var ids = AutoIDs()
            var documents = 0
            repeat {
                let batch = (0..<perTransaction).map { _ in ids.next() }
                let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
                let first = sequence.add(Int64(perTransaction), ordering: .relaxed).newValue - Int64(perTransaction)
                try connection.transaction { db in
                    try db.query(
                        "INSERT INTO documents(collection, id, fields, create_time, update_time, collection_id, "
                            + "name_key) VALUES " + Self.placeholders(rows: batch.count, columns: 7),
                        batch.flatMap { id -> [PostgresParameter] in
                            [
                                .text("bench"), .text(id), .binary(fieldsBytes), .int(now), .int(now), .text("bench"),
                                .binary(IndexKey.encode(segments: ["bench", id])),
                            ]
                        })
                    try db.query(
                        "INSERT INTO index_entries(collection, field, kind, key, id) VALUES "
                            + Self.placeholders(rows: batch.count * entries.count, columns: 5),
                        batch.flatMap { id in
                            entries.flatMap { entry -> [PostgresParameter] in
                                [
                                    .text("bench"), .text(entry.field), .int(Int64(entry.kind.rawValue)),
                                    .binary(entry.key), .text(id),
                                ]
                            }
                        })
                    try db.query(
                        "INSERT INTO changes(sequence, commit_time, path, after_fields, after_create_time, "
                            + "after_update_time) VALUES " + Self.placeholders(rows: batch.count, columns: 6),
                        batch.enumerated().flatMap { offset, id -> [PostgresParameter] in
                            [
                                .int(first + Int64(offset) + 1), .int(now), .text("bench/" + id),
                                .binary(fieldsBytes), .int(now), .int(now),
                            ]
                        })
                }
                documents += perTransaction
            } while ContinuousClock.now < deadline
            _ = client
            return documents
        }
        return Result(perTransaction: perTransaction, clients: clients, documents: documents, seconds: seconds)
    }

    /// Point reads by primary key of random documents among `count` seeded ones, from `clients` connections for
    /// `duration` — the storage side of a point GET.
    func measureReads(count: Int, clients: Int, duration: Duration) throws -> Result {
        let database = "baseline_reads"
        try cluster.createDatabase(database)
        let conninfo = cluster.conninfo(database: database)
        let setup = try PostgresConnection(conninfo: conninfo)
        for statement in Self.schema { try setup.query(statement) }
        let fieldsBytes = Value.encodeFields([
            "title": .string("hello"), "n": .integer(42), "done": .boolean(false),
        ])
        for start in stride(from: 0, to: count, by: 500) {
            let ids = (start..<min(start + 500, count)).map { "doc\($0)" }
            try setup.query(
                "INSERT INTO documents(collection, id, fields, create_time, update_time) VALUES "
                    + Self.placeholders(rows: ids.count, columns: 5),
                ids.flatMap { id -> [PostgresParameter] in
                    [.text("reads"), .text(id), .binary(fieldsBytes), .int(1), .int(1)]
                })
        }
        setup.close()
        log("raw PostgreSQL: point reads of \(count) documents, \(clients) client(s) for \(duration)")
        let (reads, seconds) = try Self.onClients(clients, duration: duration) { _, deadline in
            let connection = try PostgresConnection(conninfo: conninfo)
            defer { connection.close() }
            var random = SystemRandomNumberGenerator()
            var reads = 0
            repeat {
                let rows = try connection.query(
                    "SELECT fields, create_time, update_time FROM documents WHERE collection = $1 AND id = $2",
                    [.text("reads"), .text("doc\(Int.random(in: 0..<count, using: &random))")])
                guard rows.count == 1 else { throw BenchError("raw PostgreSQL: a seeded document was not found") }
                reads += 1
            } while ContinuousClock.now < deadline
            return reads
        }
        return Result(perTransaction: 1, clients: clients, documents: reads, seconds: seconds)
    }

    /// Runs `body(client, deadline)` on `clients` threads at once and returns the sum of their counts and the
    /// elapsed seconds; the first error wins.
    private static func onClients(
        _ clients: Int, duration: Duration,
        _ body: @escaping @Sendable (Int, ContinuousClock.Instant) throws -> Int
    ) throws -> (Int, Double) {
        let total = Mutex(0)
        let failure = Mutex<(any Error)?>(nil)
        let group = DispatchGroup()
        let start = ContinuousClock.now
        let deadline = start + duration
        for client in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let count = try body(client, deadline)
                    total.withLock { $0 += count }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            thread.start()
        }
        group.wait()
        if let error = failure.withLock({ $0 }) { throw BenchError("raw PostgreSQL: \(error)") }
        return (total.withLock { $0 }, (ContinuousClock.now - start).seconds)
    }

    /// `($1, $2, …), (…)`: `rows` groups of `columns` parameters.
    private static func placeholders(rows: Int, columns: Int) -> String {
        (0..<rows).map { row in
            "(" + (1...columns).map { "$\(row * columns + $0)" }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }
}
