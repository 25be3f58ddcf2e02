import Foundation
import HearthCore
internal import HearthPostgres
import HearthStore

/// A read-only transaction's snapshot on PostgreSQL: the name `pg_export_snapshot()` gave it on the node that began
/// it. Any node's connection reads that very snapshot after `SET TRANSACTION SNAPSHOT`, for as long as the beginning
/// node keeps its exporting transaction open (``PostgresSnapshotExporters``).
struct PostgresSnapshotName: Sendable, Equatable {
    var name: String
}

/// The transaction ledger every node of a database shares (tables `transactions`, `transaction_reads`,
/// `transaction_queries` and `transaction_query_results`, migration 26), so that a transaction begun on one node can
/// be read in, committed or rolled back on any other — Firestore clients reconnect wherever the load balancer sends
/// them. The state lives in PostgreSQL rather than in the transaction ID because a read-write transaction's read set
/// grows after its ID is handed out; an ID is 16 random bytes, as on SQLite, and forging one finds nothing.
///
/// Times are the registry's (each node's wall clock), stored as microseconds since the epoch.
final class PostgresTransactionLedger: TransactionLedger {
    typealias Connection = PostgresSnapshotName
    typealias Entry = TransactionEntry<PostgresSnapshotName>

    private let connections: PostgresConnections

    init(connections: PostgresConnections) {
        self.connections = connections
    }

    func counts(caller: String?) throws(HearthError) -> TransactionCounts {
        try run("counting open transactions") { db in
            let row = try db.query(
                """
                SELECT count(*) FILTER (WHERE read_only), count(*) FILTER (WHERE read_only AND caller = $1),
                       count(*) FILTER (WHERE caller = $1)
                FROM transactions
                """, [caller.map { .text($0) } ?? .null], binaryResults: true)[0]
            return TransactionCounts(
                readOnly: Int(try row.int(0) ?? 0), callerReadOnly: Int(try row.int(1) ?? 0),
                caller: Int(try row.int(2) ?? 0))
        }
    }

    func insert(_ entry: Entry, id: TransactionID) throws(HearthError) {
        var snapshot: PostgresParameter = .null
        if case .readOnly(let pinned) = entry.kind { snapshot = .text(pinned.connection.withLock { $0.name }) }
        _ = try run("beginning a transaction") { db in
            try db.query(
                """
                INSERT INTO transactions(id, read_only, snapshot, caller, created, last_used)
                VALUES ($1::bytea, $2, $3, $4, $5, $6)
                """,
                [
                    .binary(id.bytes), .bool(entry.isReadOnly), snapshot, entry.caller.map { .text($0) } ?? .null,
                    .int(Self.microseconds(entry.created)), .int(Self.microseconds(entry.lastUsed)),
                ])
        }
    }

    func use(
        _ id: TransactionID, at time: Date, isExpired: (Entry) -> Bool
    ) throws(HearthError) -> TransactionUse<
        PostgresSnapshotName
    > {
        guard let entry = try entry(id) else { return .unknown }
        if isExpired(entry) {
            // Of two nodes finding it expired, the one whose DELETE removed the row answers it as removed.
            let removed = try run("ending an expired transaction") { db in
                try db.query("DELETE FROM transactions WHERE id = $1::bytea RETURNING id", [.binary(id.bytes)]).count
            }
            return removed == 1 ? .expired(entry) : .unknown
        }
        let touched = try run("using a transaction") { db in
            try db.query(
                "UPDATE transactions SET last_used = greatest(last_used, $2) WHERE id = $1::bytea RETURNING id",
                [.binary(id.bytes), .int(Self.microseconds(time))]
            ).count
        }
        guard touched == 1 else { return .unknown }
        var used = entry
        used.lastUsed = max(entry.lastUsed, time)
        return .alive(used)
    }

    func entry(_ id: TransactionID) throws(HearthError) -> Entry? {
        try run("looking a transaction up") { db in
            let rows = try db.query(
                "SELECT read_only, snapshot, caller, created, last_used FROM transactions WHERE id = $1::bytea",
                [.binary(id.bytes)], binaryResults: true)
            return rows.count == 1 ? try Self.entry(rows[0]) : nil
        }
    }

    func record(_ id: TransactionID, documents: [(ResourcePath, Timestamp?)]) throws(HearthError) {
        guard !documents.isEmpty else { return }
        try run("recording a transaction's reads") { db in
            // Batches keep each statement well under PostgreSQL's 65,535 parameters.
            for start in stride(from: 0, to: documents.count, by: 1000) {
                let batch = documents[start..<min(start + 1000, documents.count)]
                var parameters: [PostgresParameter] = [.binary(id.bytes)]
                var rows: [String] = []
                for (path, updateTime) in batch {
                    rows.append("($\(parameters.count + 1)::text, $\(parameters.count + 2)::int8)")
                    parameters.append(.text(path.description))
                    parameters.append(updateTime.map { .int($0.microseconds) } ?? .null)
                }
                try Self.ignoringEndedTransaction {
                    try db.query(
                        """
                        INSERT INTO transaction_reads(transaction, path, update_time)
                        SELECT $1::bytea, v.path, v.update_time FROM (VALUES \(rows.joined(separator: ", ")))
                            AS v(path, update_time)
                        WHERE EXISTS (SELECT 1 FROM transactions WHERE id = $1::bytea AND NOT read_only)
                        ON CONFLICT (transaction, path) DO NOTHING
                        """, parameters)
                }
            }
        }
    }

    func record(
        _ id: TransactionID, query: StructuredQuery, results: [ResourcePath: Timestamp]
    ) throws(HearthError) {
        var writer = ProtoWriter()
        query.writeProtobuf(to: &writer)
        try run("recording a transaction's query") { db in
            try Self.ignoringEndedTransaction {
                let inserted = try db.query(
                    """
                    INSERT INTO transaction_queries(transaction, parent, query)
                    SELECT $1::bytea, $2, $3::bytea
                    WHERE EXISTS (SELECT 1 FROM transactions WHERE id = $1::bytea AND NOT read_only)
                    RETURNING ordinal
                    """, [.binary(id.bytes), .text(query.parent.description), .binary(writer.bytes)],
                    binaryResults: true)
                guard inserted.count == 1, let ordinal = try inserted[0].int(0) else { return }
                let results = Array(results)
                for start in stride(from: 0, to: results.count, by: 1000) {
                    var parameters: [PostgresParameter] = [.binary(id.bytes), .int(ordinal)]
                    var rows: [String] = []
                    for (path, updateTime) in results[start..<min(start + 1000, results.count)] {
                        rows.append("($\(parameters.count + 1)::text, $\(parameters.count + 2)::int8)")
                        parameters.append(.text(path.description))
                        parameters.append(.int(updateTime.microseconds))
                    }
                    try db.query(
                        """
                        INSERT INTO transaction_query_results(transaction, ordinal, path, update_time)
                        SELECT $1::bytea, $2::int8, v.path, v.update_time
                        FROM (VALUES \(rows.joined(separator: ", "))) AS v(path, update_time)
                        """, parameters)
                }
            }
        }
    }

    func remove(_ id: TransactionID) throws(HearthError) -> (entry: Entry, reads: TransactionReadSet?)? {
        let removed = try runTransaction("ending a transaction") { db -> (Entry, TransactionReadSet?)? in
            // The row lock makes one of two removers win, and holds off reads being recorded meanwhile (their
            // insert checks the row under its key-share lock).
            let rows = try db.query(
                "SELECT read_only, snapshot, caller, created, last_used FROM transactions WHERE id = $1::bytea FOR UPDATE",
                [.binary(id.bytes)], binaryResults: true)
            guard rows.count == 1 else { return nil }
            let entry = try Self.entry(rows[0])
            var reads: TransactionReadSet?
            if !entry.isReadOnly { reads = try Self.readSet(id, in: db) }
            try db.query("DELETE FROM transactions WHERE id = $1::bytea", [.binary(id.bytes)])
            return (entry, reads)
        }
        return removed.map { (entry: $0.0, reads: $0.1) }
    }

    func removeExpired(idleSince: Date, snapshotsBornBefore: Date) throws(HearthError) -> [Entry] {
        try run("ending expired transactions") { db in
            try db.query(
                """
                DELETE FROM transactions WHERE last_used < $1 OR (read_only AND created < $2)
                RETURNING read_only, snapshot, caller, created, last_used
                """, [.int(Self.microseconds(idleSince)), .int(Self.microseconds(snapshotsBornBefore))],
                binaryResults: true
            ).rows.map(Self.entry)
        }
    }

    /// Nothing: the transactions stay for the other nodes (this node's snapshots close with its exporters, and
    /// their rows expire).
    func removeAll() -> [Entry] { [] }

    // MARK: - Rows

    private static func entry(_ row: PostgresRow) throws -> Entry {
        let readOnly = try row.bool(0) ?? false
        let kind: Entry.Kind =
            readOnly ? .readOnly(TransactionSnapshot(PostgresSnapshotName(name: try row.string(1) ?? ""))) : .readWrite
        return Entry(
            kind: kind, caller: try row.string(2), created: date(try row.int(3) ?? 0),
            lastUsed: date(try row.int(4) ?? 0))
    }

    private static func readSet(_ id: TransactionID, in db: PostgresConnection) throws -> TransactionReadSet {
        var reads = TransactionReadSet()
        let documents = try db.query(
            "SELECT path, update_time FROM transaction_reads WHERE transaction = $1::bytea", [.binary(id.bytes)],
            binaryResults: true)
        for row in documents.rows {
            reads.documents[Self.path(try row.string(0) ?? "")] = .some(
                try row.int(1).map { Timestamp(microseconds: $0) })
        }
        let queries = try db.query(
            "SELECT ordinal, parent, query FROM transaction_queries WHERE transaction = $1::bytea ORDER BY ordinal",
            [.binary(id.bytes)], binaryResults: true)
        for row in queries.rows {
            let results = try db.query(
                "SELECT path, update_time FROM transaction_query_results WHERE transaction = $1::bytea AND ordinal = $2",
                [.binary(id.bytes), .int(try row.int(0) ?? 0)], binaryResults: true)
            var paths: [ResourcePath: Timestamp] = [:]
            for result in results.rows {
                paths[Self.path(try result.string(0) ?? "")] = Timestamp(microseconds: try result.int(1) ?? 0)
            }
            // References in a query are names as the client wrote them; the database named here only words errors.
            let query = try StructuredQuery(
                protobuf: try ProtoReader(try row.bytes(2) ?? []), at: "structuredQuery",
                database: DatabaseName(project: "-"), parent: Self.path(try row.string(1) ?? ""))
            reads.queries.append((query, paths))
        }
        return reads
    }

    private static func path(_ text: String) -> ResourcePath {
        ResourcePath(segments: text.split(separator: "/").map(String.init))
    }

    private static func microseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1e6).rounded()) }

    private static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1e6)
    }

    /// Runs `body`, ignoring the foreign-key failure of a read recorded just as its transaction ended.
    private static func ignoringEndedTransaction(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as PostgresError where error.sqlState == "23503" {
            return
        }
    }

    private func run<T>(_ what: String, _ body: (PostgresConnection) throws -> T) throws(HearthError) -> T {
        do {
            return try connections.withConnection(idempotent: false, body)
        } catch {
            throw hearthError(error, doing: what)
        }
    }

    private func runTransaction<T>(_ what: String, _ body: (PostgresConnection) throws -> T) throws(HearthError) -> T {
        do {
            return try connections.withTransaction("BEGIN", body)
        } catch {
            throw hearthError(error, doing: what)
        }
    }
}
