public import HearthCore

/// The one write path of a tree engine: every tree mutation (REST PUT/PATCH/POST/DELETE, priority writes, and later
/// the WebSocket protocol) reaches storage through ``write(_:completion:)``.
public protocol TreeCommitter: Sendable {
    /// Applies a write atomically; the completion runs once it is durable (or refused) on a thread of the store's
    /// choosing. Committed changes reach the engine's ``TreeChangeLog/treeFeed`` before the completion runs.
    func write(_ write: TreeWrite, completion: @escaping @Sendable (Result<TreeWriteOutcome, HearthError>) -> Void)

    /// The answer recorded with a write's idempotency key (``TreeWrite/receipt``), or `nil` when none was applied.
    func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]?
}
