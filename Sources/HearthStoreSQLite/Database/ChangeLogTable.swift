import HearthCore
import HearthSQLite

/// A change-log table of the database — the documents' `changes`, the tree's `tree_changes` — as the one change-log
/// reader (`SQLiteDatabase.changes(in:after:limit:)`, `SQLiteDatabase.head(of:)`) and the writer's pruning see it.
protocol ChangeLogTable {
    /// One committed change as the log holds it.
    associatedtype Record: Sendable

    /// Entries after `sequence`, oldest first, at most `limit`.
    static func records(after sequence: Int64, limit: Int, in db: SQLiteConnection) throws -> [Record]

    /// The last sequence number handed out (0 before the first change), even if its row was pruned since.
    static func lastSequence(in db: SQLiteConnection) throws -> Int64

    /// Drops all but the newest `retention` rows.
    static func prune(retention: Int, in db: SQLiteConnection) throws
}

extension SQLiteDatabase {
    /// The change logs the writer prunes.
    static var changeLogs: [any ChangeLogTable.Type] { [ChangeLog.self, TreeChangeTable.self] }

    /// Entries of a change log after `sequence`, oldest first, read from one snapshot.
    func changes<Log: ChangeLogTable>(
        in log: Log.Type, after sequence: Int64, limit: Int
    ) throws(HearthError) -> [Log.Record] {
        try read { db in try log.records(after: sequence, limit: limit, in: db) }
    }

    /// The last sequence a change log handed out.
    func head<Log: ChangeLogTable>(of log: Log.Type) throws(HearthError) -> Int64 {
        try read { db in try log.lastSequence(in: db) }
    }
}
