import HearthCore
internal import HearthPostgres

/// Transaction-scoped advisory locks on document paths, which make a read-write transaction's check of its read set
/// and its writes one atomic step however many nodes commit at once. Every commit takes, before reading anything,
/// an exclusive lock on each path it writes; a transaction's commit also takes a shared lock on each path it only
/// read. Row locks alone could not do this: a document read as missing has no row to lock, and two transactions
/// that each found it missing would both pass their checks and the second would overwrite the first. Locks come in
/// ascending key order, so commits waiting on each other never deadlock (PostgreSQL answers the rare deadlock with
/// another kind of lock with 40P01, which is `ABORTED`).
///
/// A key is a 32-bit hash of the path under Hearth's own lock class; two paths sharing a hash only wait on each
/// other, never skip a check. The tree's writes lock their locations the same way, under a class of their own
/// (``PostgresTreePathLocks``).
enum PostgresPathLocks {
    /// The first key of every document path lock ("HDoc"), apart from other uses of advisory locks.
    static let lockClass: Int32 = 0x4844_6F63

    /// Locks `writing` exclusively and `reading` (beyond what is written) shared, until the transaction ends.
    static func lock(writing: [ResourcePath], reading: [ResourcePath], in db: PostgresConnection) throws {
        var exclusive: [Int32: Bool] = [:]
        for path in reading { exclusive[key(Array(path.description.utf8))] = false }
        for path in writing { exclusive[key(Array(path.description.utf8))] = true }
        try lock(exclusive, class: lockClass, in: db)
    }

    /// Locks each key of `exclusive` under `lockClass` — exclusively where its value is `true`, shared otherwise —
    /// until the transaction ends, in one statement, in ascending key order (so lockers never deadlock).
    static func lock(_ exclusive: [Int32: Bool], class lockClass: Int32, in db: PostgresConnection) throws {
        guard !exclusive.isEmpty else { return }
        let ordered = exclusive.sorted { $0.key < $1.key }
        try db.query(
            """
            SELECT CASE WHEN t.exclusive THEN pg_advisory_xact_lock($1::int4, t.key)::text
                        ELSE pg_advisory_xact_lock_shared($1::int4, t.key)::text END
            FROM unnest($2::int4[], $3::bool[]) WITH ORDINALITY AS t(key, exclusive, position)
            ORDER BY t.position
            """,
            [
                .int(Int64(lockClass)), .text("{" + ordered.map { String($0.key) }.joined(separator: ",") + "}"),
                .text("{" + ordered.map { $0.value ? "t" : "f" }.joined(separator: ",") + "}"),
            ])
    }

    /// A lock key: FNV-1a over `bytes` (a document path's text, a tree location's key).
    static func key(_ bytes: [UInt8]) -> Int32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return Int32(bitPattern: hash)
    }
}
