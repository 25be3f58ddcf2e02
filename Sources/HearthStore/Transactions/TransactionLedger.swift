package import Foundation
package import HearthCore
package import Synchronization

/// Where a ``TransactionRegistry`` keeps its open transactions. The registry holds the policy — limits, expiry,
/// what a commit may do — once for every engine; a ledger only stores entries and their read sets: in this process's
/// memory (``MemoryTransactionLedger``, for an engine one process serves) or in a table every node reads (PostgreSQL,
/// so that a transaction begun on one node commits on another).
package protocol TransactionLedger<Connection>: Sendable {
    /// What pins a read-only transaction's snapshot (see ``TransactionSnapshot``).
    associatedtype Connection

    /// How many transactions are open — read-only ones in all, and `caller`'s — expired ones not yet swept included.
    func counts(caller: String?) throws(HearthError) -> TransactionCounts

    /// Stores a new transaction.
    func insert(_ entry: TransactionEntry<Connection>, id: TransactionID) throws(HearthError)

    /// Looks `id` up for a read: removes it when `isExpired` says so, otherwise marks it used at `time`.
    func use(
        _ id: TransactionID, at time: Date, isExpired: (TransactionEntry<Connection>) -> Bool
    ) throws(HearthError) -> TransactionUse<Connection>

    /// The entry, untouched (`nil` when unknown).
    func entry(_ id: TransactionID) throws(HearthError) -> TransactionEntry<Connection>?

    /// Adds documents to a read-write transaction's read set; a path already there keeps its first update time.
    /// Does nothing for a read-only or unknown transaction.
    func record(_ id: TransactionID, documents: [(ResourcePath, Timestamp?)]) throws(HearthError)

    /// Adds a query and its results to a read-write transaction's read set (nothing for other transactions).
    func record(
        _ id: TransactionID, query: StructuredQuery, results: [ResourcePath: Timestamp]
    ) throws(HearthError)

    /// Removes a transaction, answering it with its read set (`nil` for a read-only one); `nil` when unknown. Of
    /// two callers removing one transaction at once, one gets it.
    func remove(
        _ id: TransactionID
    ) throws(HearthError) -> (entry: TransactionEntry<Connection>, reads: TransactionReadSet?)?

    /// Removes the transactions idle since before `idleSince` and the read-only ones begun before
    /// `snapshotsBornBefore`, answering them.
    func removeExpired(idleSince: Date, snapshotsBornBefore: Date) throws(HearthError) -> [TransactionEntry<Connection>]

    /// Removes what this process holds, when it closes (a shared ledger keeps other nodes' transactions).
    func removeAll() -> [TransactionEntry<Connection>]
}

/// Open transactions counted for the limits.
package struct TransactionCounts: Sendable, Equatable {
    /// Read-only transactions of every caller.
    package var readOnly = 0
    /// The caller's read-only transactions.
    package var callerReadOnly = 0
    /// The caller's transactions of either kind.
    package var caller = 0

    package init(readOnly: Int = 0, callerReadOnly: Int = 0, caller: Int = 0) {
        self.readOnly = readOnly
        self.callerReadOnly = callerReadOnly
        self.caller = caller
    }
}

/// What ``TransactionLedger/use(_:at:isExpired:)`` found.
package enum TransactionUse<Connection>: Sendable {
    /// No such transaction.
    case unknown
    /// It had expired, and is removed.
    case expired(TransactionEntry<Connection>)
    /// It is open, now marked used.
    case alive(TransactionEntry<Connection>)
}

/// One open transaction as a ledger keeps it (its read set apart).
package struct TransactionEntry<Connection>: Sendable {
    /// Read-only with its pinned snapshot, or read-write.
    package enum Kind: Sendable {
        case readOnly(TransactionSnapshot<Connection>)
        case readWrite
    }

    package var kind: Kind
    /// Who began it (`nil`: a caller without a per-caller limit, such as the administrator).
    package var caller: String?
    package var created: Date
    package var lastUsed: Date

    package init(kind: Kind, caller: String?, created: Date, lastUsed: Date) {
        self.kind = kind
        self.caller = caller
        self.created = created
        self.lastUsed = lastUsed
    }

    package var isReadOnly: Bool {
        if case .readOnly = kind { return true }
        return false
    }
}

/// A pinned snapshot of a read-only transaction; its connection is used by one request at a time.
package final class TransactionSnapshot<Connection>: Sendable {
    package let connection: Mutex<Connection>
    package init(_ connection: sending Connection) { self.connection = Mutex(connection) }
}

/// What a read-write transaction has read.
package struct TransactionReadSet: Sendable {
    /// Each document read, with its update time then (`nil`: it did not exist).
    package var documents: [ResourcePath: Timestamp?] = [:]
    /// Each query run, with the paths and update times it returned.
    package var queries: [(query: StructuredQuery, results: [ResourcePath: Timestamp])] = []

    package init(
        documents: [ResourcePath: Timestamp?] = [:],
        queries: [(query: StructuredQuery, results: [ResourcePath: Timestamp])] = []
    ) {
        self.documents = documents
        self.queries = queries
    }
}
