import Foundation
import HearthCore
internal import HearthPostgres
import HearthStore

/// How the commits of every node are numbered without waiting on each other, and how far a numbered log is final
/// (issue 22). Two logs are numbered this way (``Log``): the documents' `changes` and the tree's `tree_changes`, each
/// with its own SEQUENCE and its own numbering lock, so neither log's feed waits for the other's commits.
///
/// A document commit locks what it touches (path advisory locks, row locks), works out its writes and asks the
/// judge, and then, before it writes anything, takes its *stamp* (``stamp(changes:now:after:in:)``): its change-log
/// numbers and its commit time, both handed out under a lock held for that one statement only, so numbers and commit
/// times follow one order on every node. It then writes, records its receipt and commits. A tree write locks its
/// locations (PostgresTreePathLocks), writes, and takes its numbers last, just before `COMMIT`
/// (``numbering(_:of:in:)``); tree times need no order. No lock is held by every commit until it ends, so commits on
/// different documents (tree writes to disjoint subtrees) run side by side on every node. Two commits that conflict —
/// one writes a document the other writes, or reads in its transaction; a tree write at the other's location, an
/// ancestor or a descendant — are numbered in their commit order: the second cannot take its row or path lock, and so
/// cannot reach its numbers, before the first committed, and the first took its numbers before it committed.
///
/// Numbers can commit out of order, so reading "after the last delivered" could skip a number taken earlier whose
/// transaction commits later. A reader therefore delivers only up to a *final point* (``finalPoint(of:in:)``):
/// 1. It reads the sequence's last value `L`. Every number ≤ `L` was taken before that read.
/// 2. It lists the transactions that hold the log's numbering lock in this database (`pg_locks`). A commit takes
///    that lock (shared, until it ends) before its numbers, so the taker of any number ≤ `L` either still holds
///    it — it is listed — or has ended, committed or rolled back.
/// 3. It waits until none of those listed still holds the lock. PostgreSQL releases a transaction's locks only after
///    its commit is visible to new snapshots, so from then on a read sees every committed number ≤ `L`, and a number
///    ≤ `L` not there is a gap (a rolled-back commit's) for good.
/// Since document commit times grow with numbers, a listener's read time (the last delivered commit's) covers every
/// commit with an earlier time.
/// Entries ≤ `L` not yet delivered then go out in sequence order, each once, never one above `L`; every node reads
/// the same rows in the same order. Unlike waiting for every transaction in progress at a snapshot, this waits only
/// for commits that are between `nextval` and `COMMIT` — a round trip — never for a commit still working or held
/// open (a slow judge, a long transaction), which has not taken its numbers yet.
///
/// The wipe and index catalog changes take the commit gate exclusively (``lockAllCommits(in:)``), so that no document
/// commit runs across them; every document commit takes it shared (``enterCommit(in:)``), which orders commits with
/// those, never with each other. Tree writes do not take it: nothing they do depends on the documents' wipe or
/// indexes.
enum PostgresCommitOrder {
    /// Hearth's advisory lock class for the commit gate and the numbering locks ("HOrd").
    static let lockClass: Int32 = 0x484F_7264
    private static let gateKey: Int32 = 1

    /// A change log numbered this way: the SEQUENCE its numbers come from and the key of its numbering lock (under
    /// ``lockClass``). Each log has its own lock, so a reader of one waits only for that log's commits.
    struct Log: Sendable {
        /// The SEQUENCE's name (a constant, never user input: it is spliced into the SQL).
        let sequence: String
        /// The numbering lock's second key.
        let numberingKey: Int32

        /// The documents' `changes` (migration 40).
        static let documents = Log(sequence: "change_sequence", numberingKey: 2)
        /// The tree's `tree_changes` (migration 46).
        static let tree = Log(sequence: "tree_change_sequence", numberingKey: 3)
    }

    /// The stamp lock's key: held exclusively, inside `hearth_commit_stamp` only, while a document commit's numbers
    /// and time are handed out.
    static let stampKey: Int32 = 4

    /// Takes the commit gate shared until the transaction ends: first thing in every document commit.
    static func enterCommit(in db: PostgresConnection) throws {
        try db.query(
            "SELECT pg_advisory_xact_lock_shared($1::int4, $2::int4)", [.int(Int64(lockClass)), .int(Int64(gateKey))])
    }

    /// Takes the commit gate exclusively until the transaction ends: waits for the commits in progress and holds off
    /// new ones (the wipe, index catalog changes and build steps).
    static func lockAllCommits(in db: PostgresConnection) throws {
        try db.query(
            "SELECT pg_advisory_xact_lock($1::int4, $2::int4)", [.int(Int64(lockClass)), .int(Int64(gateKey))])
    }

    /// `count` fresh sequence numbers of `log`, ascending, for the commit's changes, taken last before `COMMIT`.
    /// The log's numbering lock is taken first, so a reader that sees a number can tell its taker has not ended
    /// (step 2 above); the numbers need not be consecutive.
    static func numbering(_ count: Int, of log: Log, in db: PostgresConnection) throws -> [Int64] {
        guard count > 0 else { return [] }
        try db.query(
            "SELECT pg_advisory_xact_lock_shared($1::int4, $2::int4)",
            [.int(Int64(lockClass)), .int(Int64(log.numberingKey))])
        let rows = try db.query(
            "SELECT nextval('\(log.sequence)') FROM generate_series(1, $1::int4)", [.int(Int64(count))],
            binaryResults: true)
        return try rows.rows.map { try $0.int(0) ?? 0 }.sorted()
    }

    /// A document commit's change-log numbers and commit time, taken together once it is judged, before it writes
    /// (migration 45's `hearth_commit_stamp`): `changes` numbers, ascending, and a time later than `now`, than every
    /// document in `after` was last written and than every commit stamped before. Numbers and times are handed out
    /// under one short lock, so commit times increase with log order on every node, and a listener's read time
    /// covers every commit numbered below it. The documents' numbering lock is taken first (shared, until the
    /// transaction ends), so a reader that sees a number can tell whether its taker has ended (step 2 above).
    static func stamp(
        changes: Int, now: Timestamp, after documents: [StoredDocument], in db: PostgresConnection
    ) throws -> (numbers: [Int64], commitTime: Timestamp) {
        let floor = (documents.map(\.updateTime.microseconds).max() ?? 0) + 1
        // One row per number, or one with none when the commit changes nothing; each carries the time.
        let rows = try db.query(
            """
            SELECT stamp.commit_time, number
            FROM hearth_commit_stamp($1::int4, $2::int8, $3::int8) AS stamp
            LEFT JOIN LATERAL unnest(stamp.numbers) AS number ON true
            """, [.int(Int64(changes)), .int(now.microseconds), .int(floor)], binaryResults: true)
        let numbers = try rows.rows.compactMap { try $0.int(1) }
        let time = try rows.rows.first?.int(0) ?? 0
        return (numbers.sorted(), Timestamp(microseconds: time))
    }

    /// The last document commit time stamped so far, in microseconds (0 before the first).
    static func lastStampedTime(in db: PostgresConnection) throws -> Int64 {
        try db.query("SELECT last_value FROM commit_time_sequence", binaryResults: true)[0].int(0) ?? 0
    }

    /// The last number of `log` taken by any commit so far (0 before the first).
    static func lastTaken(of log: Log, in db: PostgresConnection) throws -> Int64 {
        try db.query(
            "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM \(log.sequence)",
            binaryResults: true)[0].int(0) ?? 0
    }

    /// The point up to which `log` is final (see the type's comment): every entry at or below it that will ever be
    /// committed is committed now, and visible to every snapshot taken after this returns. Waits (polling every few
    /// milliseconds) for the commits that were taking numbers when it looked; they are one round trip from their
    /// `COMMIT`.
    static func finalPoint(of log: Log, in db: PostgresConnection) throws -> Int64 {
        let last = try lastTaken(of: log, in: db)
        var holders = try numberingHolders(of: log, in: db)
        var pause = 0.000_5
        while !holders.isEmpty {
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 0.02)
            holders.formIntersection(try numberingHolders(of: log, in: db))
        }
        return last
    }

    /// The transactions (virtual transaction IDs) holding this database's numbering lock of `log` now.
    ///
    /// Advisory locks belong to a database, and `pg_locks` lists those of every database on the server. Without the
    /// `database` condition a commit holding its numbers in another database (another project's, another test's)
    /// would hold up this feed too — and every engine opening on the server, which waits for a final point: a mixed
    /// test run hung that way, its blocked openings filling the thread pool the holding test needed to let go.
    private static func numberingHolders(of log: Log, in db: PostgresConnection) throws -> Set<String> {
        let rows = try db.query(
            """
            SELECT virtualtransaction FROM pg_locks
            WHERE locktype = 'advisory' AND classid = $1::int4::oid AND objid = $2::int4::oid AND objsubid = 2
              AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [.int(Int64(lockClass)), .int(Int64(log.numberingKey))])
        return Set(try rows.rows.map { try $0.string(0) ?? "" })
    }
}
