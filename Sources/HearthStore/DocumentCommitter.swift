public import HearthCore

/// The one write path of a document engine: every document mutation (REST, gRPC, WebChannel, batch, transaction,
/// console, import, file metadata) reaches storage through ``commit(_:in:transaction:judge:receipt:completion:)``.
public protocol DocumentCommitter: Sendable {
    /// Commits writes atomically: all of them land with one commit time, or none does. The completion runs
    /// once the commit is durable (or failed), on a thread of the store's choosing. `database` names documents
    /// in error messages.
    /// With a read-write `transaction`, the commit first checks that nothing the transaction read has changed
    /// (`ABORTED` otherwise) and then ends the transaction. A `judge` (the caller's security rules) runs inside the
    /// commit's transaction on the commit as worked out; if it throws, nothing is applied and its error is the answer.
    /// A `receipt`'s key and answer are recorded in the same transaction; a key already recorded (or being recorded
    /// by a commit in flight) fails the commit with `UNAVAILABLE` and applies nothing, so the caller can retry and
    /// find the answer with ``recordedAnswer(forWriteID:)``.
    func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?, judge: CommitJudge?,
        receipt: WriteReceipt<CommitResult>?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void)

    /// The answer recorded with a write's idempotency key, or `nil` when no write with that key was applied (or its
    /// receipt has been pruned).
    func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]?
}

extension DocumentCommitter {
    /// Commits without an idempotency key.
    public func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?, judge: CommitJudge?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        commit(writes, in: database, transaction: transaction, judge: judge, receipt: nil, completion: completion)
    }

    /// Commits without a rules check or an idempotency key.
    public func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        commit(writes, in: database, transaction: transaction, judge: nil, receipt: nil, completion: completion)
    }

    /// Commits outside any transaction, without a rules check or an idempotency key.
    public func commit(
        _ writes: [Write], in database: DatabaseName,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        commit(writes, in: database, transaction: nil, judge: nil, receipt: nil, completion: completion)
    }
}
