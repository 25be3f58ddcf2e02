package import Foundation
package import HearthCore
package import Synchronization

/// Open transactions. Read-only ones hold an engine connection inside a read transaction, which pins one
/// consistent snapshot; read-write ones record what they read so the commit can check it is unchanged
/// (optimistic concurrency: a conflict ends in `ABORTED` and the client retries, as Firestore clients do).
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
    package final class Snapshot: Sendable {
        package let connection: Mutex<Connection>
        init(_ connection: sending Connection) { self.connection = Mutex(connection) }
    }

    private enum Kind {
        case readOnly(Snapshot)
        case readWrite(ReadSet)
    }

    private struct Entry {
        var kind: Kind
        /// Who began it (`nil`: a caller without a per-caller limit, such as the administrator).
        var caller: String?
        var created: Date
        var lastUsed: Date

        var isReadOnly: Bool {
            if case .readOnly = kind { return true }
            return false
        }

        /// Whether the transaction can no longer be used at `time`: idle too long, or a snapshot past its life.
        func isExpired(at time: Date, _ limits: Limits) -> Bool {
            time.timeIntervalSince(lastUsed) > limits.idleTimeout
                || (isReadOnly && time.timeIntervalSince(created) > limits.snapshotLifetime)
        }
    }

    private let entries = Mutex<[TransactionID: Entry]>([:])
    private let limits: Limits
    private let now: @Sendable () -> Date
    /// Ends a read-only transaction's snapshot (rolls its read transaction back and closes its connection).
    private let closeSnapshot: @Sendable (inout Connection) -> Void

    package init(
        limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() },
        closeSnapshot: @escaping @Sendable (inout Connection) -> Void
    ) {
        self.limits = limits
        self.now = now
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
        sweep()
        var generator = SystemRandomNumberGenerator()
        let id = TransactionID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let readOnly = mode == .readOnly
        let refusal: HearthError? = entries.withLock { entries in
            let readOnlyCount = readOnly ? entries.values.filter(\.isReadOnly).count : 0
            if readOnly && readOnlyCount >= limits.maxReadOnly {
                return HearthError(
                    .resourceExhausted,
                    "Too many open read-only transactions (\(limits.maxReadOnly)); commit or roll back some.")
            }
            guard let caller else { return nil }
            let own = entries.values.filter { $0.caller == caller }
            if readOnly && own.filter(\.isReadOnly).count >= limits.maxReadOnlyPerCaller {
                return HearthError(
                    .resourceExhausted,
                    "This caller holds \(limits.maxReadOnlyPerCaller) open read-only transactions, the most one caller may; commit or roll back one first."
                )
            }
            if own.count >= limits.maxPerCaller {
                return HearthError(
                    .resourceExhausted,
                    "This caller holds \(limits.maxPerCaller) open transactions, the most one caller may; commit or roll back some first."
                )
            }
            return nil
        }
        if let refusal { throw refusal }
        let kind: Kind = readOnly ? .readOnly(Snapshot(try openSnapshot())) : .readWrite(ReadSet())
        let time = now()
        entries.withLock { $0[id] = Entry(kind: kind, caller: caller, created: time, lastUsed: time) }
        return id
    }

    /// The transaction's snapshot when it is read-only, `nil` when it is read-write; refreshes its idle timer.
    package func snapshot(_ id: TransactionID) throws(HearthError) -> Snapshot? {
        let time = now()
        var ended: Entry?
        let result: Result<Snapshot?, HearthError> = entries.withLock { entries in
            guard var entry = entries[id] else { return .failure(Self.expired) }
            guard !entry.isExpired(at: time, limits) else {
                ended = entries.removeValue(forKey: id)
                return .failure(Self.expired)
            }
            entry.lastUsed = time
            entries[id] = entry
            if case .readOnly(let snapshot) = entry.kind { return .success(snapshot) }
            return .success(nil)
        }
        if let ended { close(ended) }
        return try result.get()
    }

    /// Records documents a read-write transaction read (the first read of a path wins).
    package func record(_ id: TransactionID, documents: [(ResourcePath, StoredDocument?)]) {
        entries.withLock { entries in
            guard var entry = entries[id], case .readWrite(var reads) = entry.kind else { return }
            for (path, document) in documents where reads.documents[path] == nil {
                reads.documents[path] = .some(document?.updateTime)
            }
            entry.kind = .readWrite(reads)
            entries[id] = entry
        }
    }

    /// Records a query a read-write transaction ran, with its results.
    package func record(_ id: TransactionID, query: StructuredQuery, results: [StoredDocument]) {
        entries.withLock { entries in
            guard var entry = entries[id], case .readWrite(var reads) = entry.kind else { return }
            reads.queries.append(
                (query, Dictionary(results.map { ($0.path, $0.updateTime) }, uniquingKeysWith: { a, _ in a })))
            entry.kind = .readWrite(reads)
            entries[id] = entry
        }
    }

    /// Ends a transaction for its commit: its read set (`nil` for read-only ones).
    package func finishForCommit(_ id: TransactionID) throws(HearthError) -> ReadSet? {
        let time = now()
        let result: Result<ReadSet?, HearthError> = entries.withLock { entries in
            guard let entry = entries.removeValue(forKey: id) else { return .failure(Self.expired) }
            guard !entry.isExpired(at: time, limits) else {
                close(entry)
                return .failure(Self.expired)
            }
            if time.timeIntervalSince(entry.created) > limits.maxAge {
                close(entry)
                return .failure(
                    HearthError(
                        .aborted,
                        "The transaction is older than \(Int(limits.maxAge)) seconds and cannot commit; retry it."))
            }
            switch entry.kind {
            case .readOnly:
                close(entry)
                return .success(nil)
            case .readWrite(let reads):
                return .success(reads)
            }
        }
        return try result.get()
    }

    /// Whether a transaction is read-only (without touching it).
    package func isReadOnly(_ id: TransactionID) -> Bool {
        entries.withLock { entries in
            if case .readOnly? = entries[id]?.kind { return true }
            return false
        }
    }

    package func rollback(_ id: TransactionID) throws(HearthError) {
        let entry = entries.withLock { $0.removeValue(forKey: id) }
        guard let entry else { throw Self.expired }
        close(entry)
    }

    /// Drops idle transactions and snapshots past their life. Runs at each begin and whenever the write-ahead log
    /// outgrows its limit, so an abandoned snapshot does not keep the log from starting over.
    package func sweep() {
        let time = now()
        let stale = entries.withLock { entries -> [Entry] in
            let ids = entries.filter { $0.value.isExpired(at: time, limits) }.map(\.key)
            return ids.compactMap { entries.removeValue(forKey: $0) }
        }
        stale.forEach(close)
    }

    package func closeAll() {
        let all = entries.withLock { entries -> [Entry] in
            defer { entries.removeAll() }
            return Array(entries.values)
        }
        all.forEach(close)
    }

    private func close(_ entry: Entry) {
        if case .readOnly(let snapshot) = entry.kind {
            snapshot.connection.withLock { connection in closeSnapshot(&connection) }
        }
    }
}

/// What a read-write transaction has read.
package struct TransactionReadSet: Sendable {
    /// Each document read, with its update time then (`nil`: it did not exist).
    package var documents: [ResourcePath: Timestamp?] = [:]
    /// Each query run, with the paths and update times it returned.
    package var queries: [(query: StructuredQuery, results: [ResourcePath: Timestamp])] = []
}
