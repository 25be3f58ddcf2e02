public import HearthCore

/// The reads of a document engine: point reads, queries, aggregations and listings, and the transactions whose
/// snapshots they read (a read-write transaction ends in its commit, on ``DocumentCommitter``).
public protocol DocumentReader: Sendable {
    /// The documents at several paths, read from one consistent snapshot; `nil` where missing. In a
    /// transaction, read-only ones read its snapshot and read-write ones record what they read.
    func documents(at paths: [ResourcePath], transaction: TransactionID?) throws(HearthError) -> [StoredDocument?]

    /// The documents a query matches, answered from indexes (`FAILED_PRECONDITION` naming the composite
    /// index to declare when none can serve it). Pass a query as decoded; the store normalizes it.
    func runQuery(_ query: StructuredQuery, transaction: TransactionID?) throws(HearthError) -> QueryResults

    /// Aggregates (`count`, `sum`, `avg`) over a query's matches.
    func runAggregation(
        _ query: AggregationQuery, transaction: TransactionID?
    ) throws(HearthError) -> AggregationResults

    /// Starts a transaction for `caller` — who holds it, for the per-caller limits (the signed-in user, else
    /// the client's address); `nil` for callers without one, such as the administrator.
    func beginTransaction(_ mode: TransactionMode, caller: String?) throws(HearthError) -> TransactionID

    /// Ends a transaction without committing. Unknown IDs are an error, as in Firestore.
    func rollback(_ transaction: TransactionID) throws(HearthError)

    /// One page of a collection's documents.
    func listDocuments(_ request: ListDocumentsRequest) throws(HearthError) -> ListDocumentsPage

    /// The IDs of the collections directly below a document (or the root), in order.
    func collectionIDs(under parent: ResourcePath, after: String?, limit: Int) throws(HearthError) -> [String]
}

extension DocumentReader {
    /// The document at a path, or `nil`.
    public func document(
        at path: ResourcePath, transaction: TransactionID? = nil
    ) throws(HearthError) -> StoredDocument? {
        try documents(at: [path], transaction: transaction)[0]
    }

    /// The documents at several paths outside any transaction.
    public func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?] {
        try documents(at: paths, transaction: nil)
    }
}
