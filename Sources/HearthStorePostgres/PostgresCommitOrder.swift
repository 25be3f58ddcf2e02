import Foundation
import HearthCore
internal import HearthPostgres
import HearthStore

/// How document commits of every node are numbered and timed without waiting on each other, and how far the
/// numbered log is final (issue 22).
///
/// A commit locks what it touches (path advisory locks, row locks), and then, before it writes anything, takes its
/// *stamp* (``stamp(changes:now:after:in:)``): its change-log numbers from the `change_sequence` SEQUENCE and its
/// commit time, both handed out under a lock held for that one statement only, so numbers and commit times follow
/// one order on every node. It then writes, asks the judge, records its receipt and commits. No lock is held by
/// every commit until it ends, so commits on different documents run side by side, on one node and on several. Two
/// commits that conflict — one writes a document the other writes, or reads in its transaction — are stamped in their
/// commit order: the second cannot take its row or path lock, and so cannot reach its stamp, before the first
/// committed.
///
/// Numbers can commit out of order, so reading "after the last delivered" could skip a number taken earlier whose
/// transaction commits later. A reader therefore delivers only up to a *final point* (``finalPoint(in:)``):
/// 1. It reads the sequence's last value `L`. Every number ≤ `L` was taken before that read.
/// 2. It lists the transactions that hold the numbering lock in this database (`pg_locks`). A commit takes that lock
///    (shared, until it ends) in its stamp, before its numbers, so the taker of any number ≤ `L` either still holds
///    it — it is listed — or has ended, committed or rolled back.
/// 3. It waits until none of those listed still holds the lock. PostgreSQL releases a transaction's locks only after
///    its commit is visible to new snapshots, so from then on a read sees every committed number ≤ `L`, and a number
///    ≤ `L` not there is a gap (a rolled-back commit's, or a write that changed nothing) for good.
/// Entries ≤ `L` not yet delivered then go out in sequence order, each once, never one above `L`; every node reads
/// the same rows in the same order. Since commit times grow with numbers, a listener's read time (the last delivered
/// commit's) covers every commit with an earlier time. Unlike waiting for every transaction in progress at a
/// snapshot, this waits only for commits between their stamp and their `COMMIT` — never for one still waiting for
/// its locks or held open before it (a long transaction), which has not been stamped yet.
///
/// The wipe and index catalog changes take the commit gate exclusively (``lockAllCommits(in:)``), so that no commit
/// runs across them; every commit takes it shared (``enterCommit(in:)``), which orders commits with those, never
/// with each other.
enum PostgresCommitOrder {
    /// Hearth's advisory lock class for the commit gate and the numbering lock ("HOrd").
    static let lockClass: Int32 = 0x484F_7264
    private static let gateKey: Int32 = 1
    /// The numbering lock's key (shared, until the transaction ends): its holders are the commits whose numbers may
    /// still commit.
    static let numberingKey: Int32 = 2
    /// The stamp lock's key: held exclusively, inside `hearth_commit_stamp` only, while a commit's numbers and time
    /// are handed out.
    static let stampKey: Int32 = 3

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

    /// A document commit's change-log numbers and commit time, taken together as soon as its documents are locked
    /// (migration 45's `hearth_commit_stamp`): `changes` numbers, ascending (one per write; a write that changes
    /// nothing leaves a gap), and a time later than `now`'s floor, than every document in `after` was last written
    /// and than every commit stamped before. Numbers and times are handed out under one short lock, so commit times
    /// increase with log order on every node, and a listener's read time covers every commit numbered below it;
    /// the numbering lock is taken first (shared, until the transaction ends), so a reader that sees a number can tell
    /// whether its taker has ended (step 2 of the type's comment).
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

    /// The last commit time stamped so far, in microseconds (0 before the first).
    static func lastStampedTime(in db: PostgresConnection) throws -> Int64 {
        try db.query("SELECT last_value FROM commit_time_sequence", binaryResults: true)[0].int(0) ?? 0
    }

    /// The last number taken by any commit so far (0 before the first).
    static func lastTaken(in db: PostgresConnection) throws -> Int64 {
        try db.query(
            "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM change_sequence",
            binaryResults: true)[0].int(0) ?? 0
    }

    /// The point up to which the change log is final (see the type's comment): every entry at or below it that will
    /// ever be committed is committed now. Waits (polling every few milliseconds) for the commits that were taking
    /// numbers when it looked; they are one round trip from their `COMMIT`.
    static func finalPoint(in db: PostgresConnection) throws -> Int64 {
        let last = try lastTaken(in: db)
        var holders = try numberingHolders(in: db)
        var pause = 0.000_5
        while !holders.isEmpty {
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 0.02)
            holders.formIntersection(try numberingHolders(in: db))
        }
        return last
    }

    /// The transactions (virtual transaction IDs) holding this database's numbering lock now.
    ///
    /// Advisory locks belong to a database, and `pg_locks` lists those of every database on the server. Without the
    /// `database` condition a commit holding its numbers in another database (another project's, another test's)
    /// would hold up this feed too — and every engine opening on the server, which waits for a final point: a mixed
    /// test run hung that way, its blocked openings filling the thread pool the holding test needed to let go.
    private static func numberingHolders(in db: PostgresConnection) throws -> Set<String> {
        let rows = try db.query(
            """
            SELECT virtualtransaction FROM pg_locks
            WHERE locktype = 'advisory' AND classid = $1::int4::oid AND objid = $2::int4::oid AND objsubid = 2
              AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [.int(Int64(lockClass)), .int(Int64(numberingKey))])
        return Set(try rows.rows.map { try $0.string(0) ?? "" })
    }
}
