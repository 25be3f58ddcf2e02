package import Foundation
package import HearthCore

/// Open transactions. Read-only ones hold an engine snapshot (SQLite: a connection inside a read transaction;
/// PostgreSQL: an exported snapshot any node can import), which pins one consistent view; read-write ones record
/// what they read so the commit can check it is unchanged (optimistic concurrency: a conflict ends in `ABORTED`
/// and the client retries, as Firestore clients do).
///
/// The policy — limits, expiry, what may commit — is here, once for every engine; the entries are kept by a
/// ``TransactionLedger``: this process's memory by default, or one shared by every node of a database.
package final class TransactionRegistry<Connection>: Sendable {
    /// Lifetimes, as Firestore's: idle transactions expire, and old ones may not commit.
    package struct Limits: Sendable {
        package var idleTimeout: TimeInterval = 60
        package var maxAge: TimeInterval = 270
        /// How long a read-only transaction's snapshot lives from its start, used or not: while it is open the
        /// write-ahead log cannot start over, so a snapshot kept busy must not pin it for the whole `maxAge`.
        package var snapshotLifetime: TimeInterval = 60
        package var maxReadOnly = 64
        /// Read-only transactions one caller may hold at once, so one client cannot take every snapshot slot.
        package var maxReadOnlyPerCaller = 8
        /// Open transactions of any kind one caller may hold at once (each read-write one keeps its read set).
        package var maxPerCaller = 256

        package init() {}
    }

    /// What a read-write transaction has read.
    package typealias ReadSet = TransactionReadSet
    /// A pinned snapshot; its connection is used by one request at a time.
    package typealias Snapshot = TransactionSnapshot<Connection>
    private typealias Entry = TransactionEntry<Connection>

    private let ledger: any TransactionLedger<Connection>
    private let limits: Limits
    private let now: @Sendable () -> Date
    /// Ends a read-only transaction's snapshot (rolls its read transaction back and closes its connection).
    private let closeSnapshot: @Sendable (inout Connection) -> Void

    /// A registry keeping its entries in `ledger` (this process's memory when `nil`).
    package init(
        limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() },
        ledger: (any TransactionLedger<Connection>)? = nil,
        closeSnapshot: @escaping @Sendable (inout Connection) -> Void
    ) {
        self.limits = limits
        self.now = now
        self.ledger = ledger ?? MemoryTransactionLedger<Connection>()
        self.closeSnapshot = closeSnapshot
    }

    package static var expired: HearthError {
        HearthError.invalidArgument(
            "The transaction has expired or is not valid: transactions end at commit or rollback and expire after 60 seconds idle (a read-only one 60 seconds after it began); begin a new one."
        )
    }

    /// Begins a transaction for `caller` (`nil`: no per-caller limit).
    /// - Throws: `RESOURCE_EXHAUSTED` when the caller, or everyone together, holds the most transactions allowed.
    package func begin(
        _ mode: TransactionMode, caller: String?, openSnapshot: () throws -> sending Connection
    ) throws -> TransactionID {
        try sweep()
        var generator = SystemRandomNumberGenerator()
        let id = TransactionID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let readOnly = mode == .readOnly
        let counts = try ledger.counts(caller: caller)
        if readOnly && counts.readOnly >= limits.maxReadOnly {
            throw HearthError(
                .resourceExhausted,
                "Too many open read-only transactions (\(limits.maxReadOnly)); commit or roll back some.")
        }
        if caller != nil {
            if readOnly && counts.callerReadOnly >= limits.maxReadOnlyPerCaller {
                throw HearthError(
                    .resourceExhausted,
                    "This caller holds \(limits.maxReadOnlyPerCaller) open read-only transactions, the most one caller may; commit or roll back one first."
                )
            }
            if counts.caller >= limits.maxPerCaller {
                throw HearthError(
                    .resourceExhausted,
                    "This caller holds \(limits.maxPerCaller) open transactions, the most one caller may; commit or roll back some first."
                )
            }
        }
        let kind: Entry.Kind = readOnly ? .readOnly(Snapshot(try openSnapshot())) : .readWrite
        let time = now()
        let entry = Entry(kind: kind, caller: caller, created: time, lastUsed: time)
        do {
            try ledger.insert(entry, id: id)
        } catch {
            close(entry)
            throw error
        }
        return id
    }

    /// The transaction's snapshot when it is read-only, `nil` when it is read-write; refreshes its idle timer.
    package func snapshot(_ id: TransactionID) throws(HearthError) -> Snapshot? {
        let time = now()
        switch try ledger.use(id, at: time, isExpired: { isExpired($0, at: time) }) {
        case .unknown:
            throw Self.expired
        case .expired(let entry):
            close(entry)
            throw Self.expired
        case .alive(let entry):
            if case .readOnly(let snapshot) = entry.kind { return snapshot }
            return nil
        }
    }

    /// Records documents a read-write transaction read (the first read of a path wins).
    package func record(_ id: TransactionID, documents: [(ResourcePath, StoredDocument?)]) throws(HearthError) {
        try ledger.record(id, documents: documents.map { ($0.0, $0.1?.updateTime) })
    }

    /// Records a query a read-write transaction ran, with its results.
    package func record(_ id: TransactionID, query: StructuredQuery, results: [StoredDocument]) throws(HearthError) {
        try ledger.record(
            id, query: query,
            results: Dictionary(results.map { ($0.path, $0.updateTime) }, uniquingKeysWith: { a, _ in a }))
    }

    /// Ends a transaction for its commit: its read set (`nil` for read-only ones).
    package func finishForCommit(_ id: TransactionID) throws(HearthError) -> ReadSet? {
        let time = now()
        guard let (entry, reads) = try ledger.remove(id).map({ ($0.entry, $0.reads) }) else { throw Self.expired }
        guard !isExpired(entry, at: time) else {
            close(entry)
            throw Self.expired
        }
        if time.timeIntervalSince(entry.created) > limits.maxAge {
            close(entry)
            throw HearthError(
                .aborted, "The transaction is older than \(Int(limits.maxAge)) seconds and cannot commit; retry it.")
        }
        close(entry)
        return reads
    }

    /// Whether a transaction is read-only (without touching it; `false` when it cannot be looked up).
    package func isReadOnly(_ id: TransactionID) -> Bool {
        (try? ledger.entry(id))?.isReadOnly ?? false
    }

    package func rollback(_ id: TransactionID) throws(HearthError) {
        guard let removed = try ledger.remove(id) else { throw Self.expired }
        close(removed.entry)
    }

    /// Drops idle transactions and snapshots past their life. Runs at each begin and whenever the write-ahead log
    /// outgrows its limit, so an abandoned snapshot does not keep the log from starting over.
    package func sweep() throws(HearthError) {
        let time = now()
        let stale = try ledger.removeExpired(
            idleSince: time.addingTimeInterval(-limits.idleTimeout),
            snapshotsBornBefore: time.addingTimeInterval(-limits.snapshotLifetime))
        stale.forEach(close)
    }

    package func closeAll() {
        ledger.removeAll().forEach(close)
    }

    /// Whether the transaction can no longer be used at `time`: idle too long, or a snapshot past its life.
    private func isExpired(_ entry: Entry, at time: Date) -> Bool {
        time.timeIntervalSince(entry.lastUsed) > limits.idleTimeout
            || (entry.isReadOnly && time.timeIntervalSince(entry.created) > limits.snapshotLifetime)
    }

    private func close(_ entry: Entry) {
        if case .readOnly(let snapshot) = entry.kind {
            snapshot.connection.withLock { connection in closeSnapshot(&connection) }
        }
    }
}
